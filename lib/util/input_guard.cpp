#include "util/input_guard.h"

#include <filesystem>

#include "util/error.h"
#include "util/text.h"

namespace trainer {

const ReadFile* input_named_by(const std::string& output, const std::vector<ReadFile>& inputs) {
  for (const ReadFile& input : inputs) {
    std::error_code error;
    // equivalent() compares device and inode: every spelling and hard link
    // of one file; it is false (with an error) when either does not exist.
    if (!input.path.empty() && std::filesystem::equivalent(output, input.path, error) && !error) return &input;
  }
  return nullptr;
}

void check_not_an_input(const std::string& option, const std::string& output, const std::vector<ReadFile>& inputs) {
  const ReadFile* input = input_named_by(output, inputs);
  if (!input) return;
  const std::string spelled = input->path == output ? "" : " (" + printable(input->path) + ")";
  throw UsageError(option + " " + printable(output) + " is " + input->role + spelled +
                       ", which this command reads: writing there would replace it",
                   "name another file to write");
}

}  // namespace trainer
