#pragma once
// Outputs never replace inputs: a command that writes files checks each of
// them against the files it reads before it writes the first, whatever the
// spelling (./a.pt, ../run/a.pt, a hard link, a linked folder above it).
// `trainer tune FILE -o FILE` would otherwise replace the experiment with a
// file that extends itself, and `trainer export --checkpoint a.pt -o a.pt`
// the checkpoint with its export.
#include <string>
#include <vector>

namespace trainer {

struct ReadFile {
  std::string path;
  std::string role;  // what it is to the command: "the checkpoint", "the experiment file"
};

// The first of `inputs` that `output` names, or nullptr. A path that does
// not exist yet names none of them.
const ReadFile* input_named_by(const std::string& output, const std::vector<ReadFile>& inputs);

// Throws UsageError when `output` (the value of `option`, "-o") names one
// of `inputs`, naming it and its role.
void check_not_an_input(const std::string& option, const std::string& output, const std::vector<ReadFile>& inputs);

}  // namespace trainer
