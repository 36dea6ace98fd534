#pragma once
// Decoding many image files at once, on data.workers threads, into the
// tensors data.images asks for (image_tensor.h): what every image data set
// does before it stacks them.
#include <torch/torch.h>

#include <string>
#include <vector>

#include "data/dataset.h"
#include "spec/experiment_config.h"

namespace trainer {

struct DecodedFiles {
  std::vector<torch::Tensor> tensors;  // [C, H, W] each; undefined where problems says why
  std::vector<std::string> problems;   // empty where the file decoded
};

// Reads and decodes `files` on `config.workers` threads. A file that cannot
// be read or decoded gets its DataError's message in `problems`; anything
// else (out of memory) is rethrown.
DecodedFiles decode_image_files(const std::vector<std::string>& files, const DataConfig& config);

// What data.on_bad_file says of the problems: with error, throws the first
// as a DataError; with skip, warns about each (the first ten named) and
// returns which files to keep. `what`: "training images", "validation
// pairs"..., for the count.
std::vector<bool> usable_files(const std::vector<std::string>& problems, const DataConfig& config,
                               const std::string& what);

// Throws a DataError naming the folder when the training and validation
// images differ in size (each split's own images were checked as they were
// stacked).
void require_one_size(const DataSplits& splits, const DataConfig& config);

}  // namespace trainer
