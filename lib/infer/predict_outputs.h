#pragma once
// Where `trainer predict` writes, decided before the first image is read,
// so that it can never replace what the user had: not its own inputs, not
// an earlier output (unless asked), not one output by another; and that it
// never reports success with nothing written.
#include <cstdint>
#include <string>
#include <vector>

#include "util/input_guard.h"

namespace trainer {

// Throws UsageError when the output folder is the input folder, lies inside
// it, or holds it: outputs would land among (or over) the inputs, and the
// next run would read them as inputs. A single input file may have its
// output folder where it lies; the name checks below keep it safe.
void check_output_folder(const std::string& input, const std::string& output, bool input_is_folder);

// The output image names, one per input path relative to the input folder:
// the relative path with the extension replaced by .png (frames/a.jpg ->
// frames/a.png). Inputs of one folder that share a stem keep their
// extension in the name (a.png, a.jpg -> a.png.png, a.jpg.png). A name two
// inputs would still share is a UsageError naming both.
std::vector<std::string> image_output_names(const std::vector<std::string>& relatives);

// Throws UsageError naming the first of `paths` that exists (and how many
// do), unless `overwrite`; whatever exists must be a regular file trainer
// may replace (atomic_file.h's check_replaceable) and none of `inputs` (a
// single input file in the output folder: photos/a.png -> photos/a.png),
// even then.
void check_no_existing_outputs(const std::vector<std::string>& paths, bool overwrite,
                               const std::vector<ReadFile>& inputs);

// Throws DataError when nothing was predicted because all `skipped` inputs
// (`noun`s: "file", "row") were left out under data.on_bad_file: skip: exit
// 0 with nothing written would tell a script that all went well.
void check_something_predicted(const std::string& input, int64_t predicted, int64_t skipped, const std::string& noun);

}  // namespace trainer
