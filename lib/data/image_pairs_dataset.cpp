// image_pairs: input images and the target images a model should turn them
// into (blurred and sharp), matched by path (image_pairs_index.h). Both are
// decoded once, on data.workers threads, into tensors: the inputs, and the
// targets in place of class labels.
#include "data/dataset_loaders.h"
#include "data/file_bytes.h"
#include "data/image_files.h"
#include "data/image_folder_index.h"
#include "data/image_pairs_index.h"
#include "data/image_tensor.h"
#include "util/error.h"
#include "util/logging.h"
#include "util/stopwatch.h"

namespace trainer {
namespace {

std::vector<ImagePair> pick(const std::vector<ImagePair>& pairs, const std::vector<int64_t>& order) {
  std::vector<ImagePair> picked;
  for (int64_t i : order) picked.push_back(pairs[static_cast<size_t>(i)]);
  return picked;
}

// Inputs and targets of `pairs`, stacked; a pair whose two images differ in
// size is a data error naming both.
TensorDataset decode_pairs(const std::vector<ImagePair>& pairs, const DataConfig& config, const std::string& split) {
  std::vector<std::string> files;
  for (const auto& pair : pairs) files.push_back(pair.input);
  for (const auto& pair : pairs) files.push_back(pair.target);
  DecodedFiles decoded = decode_image_files(files, config);
  const size_t n = pairs.size();
  // A pair is left out when either image is.
  std::vector<std::string> pair_problems(n);
  for (size_t i = 0; i < n; ++i)
    pair_problems[i] = !decoded.problems[i].empty() ? decoded.problems[i] : decoded.problems[n + i];
  const std::vector<bool> usable = usable_files(pair_problems, config, split + " pairs");
  std::vector<torch::Tensor> inputs, targets;
  for (size_t i = 0; i < n; ++i) {
    if (!usable[i]) continue;
    const torch::Tensor& input = decoded.tensors[i];
    const torch::Tensor& target = decoded.tensors[n + i];
    if (input.sizes() != target.sizes())
      throw DataError(pairs[i].input + " is " + pixel_size_text(input) + " pixels and its target " + pairs[i].target + " " +
                          pixel_size_text(target),
                      "the two images of a pair must have one size");
    if (!inputs.empty() && input.sizes() != inputs.front().sizes())
      throw DataError(pairs[i].input + ": the image is " + pixel_size_text(input) + " pixels, the first one " +
                          pixel_size_text(inputs.front()),
                      "set data.images.size to bring every image to one size");
    inputs.push_back(input);
    targets.push_back(target);
  }
  if (inputs.empty()) throw DataError("no " + split + " pairs could be decoded");
  return {torch::stack(inputs), torch::stack(targets)};
}

DataInfo pairs_info(const DataConfig& config, std::vector<int64_t> shape) {
  DataInfo info;
  info.name = "image_pairs";
  info.target_shape = shape;
  info.input_shape = std::move(shape);
  info.value_range = config.images.value_range();
  return info;
}

}  // namespace

DataSplits load_image_pairs(const DataConfig& config) {
  Stopwatch clock;
  const std::vector<ImagePair> pairs = index_image_pairs(config.path, config.pairs.input, config.pairs.target);
  const auto count = static_cast<int64_t>(pairs.size());
  std::vector<ImagePair> train, valid;
  if (config.validation_path.empty()) {
    const FolderSplit split = plan_folder_split(count, std::nullopt, config, "pairs");
    train = pick(pairs, split.train);
    valid = pick(pairs, split.valid);
  } else {
    const auto valid_pairs = index_image_pairs(config.validation_path, config.pairs.input, config.pairs.target);
    const FolderSplit split = plan_folder_split(count, static_cast<int64_t>(valid_pairs.size()), config, "pairs");
    train = pick(pairs, split.train);
    valid = pick(valid_pairs, split.valid);
  }
  log().info("decoding {} + {} image pairs on {} thread{}", train.size(), valid.size(), config.workers,
             config.workers == 1 ? "" : "s");
  DataSplits splits;
  splits.train = decode_pairs(train, config, "training");
  splits.valid = decode_pairs(valid, config, "validation");
  require_one_size(splits, config);
  splits.info = pairs_info(config, splits.train.inputs.sizes().slice(1).vec());
  log().info("decoded in {:.1f} s", clock.seconds());
  return splits;
}

std::optional<DataInfo> preview_image_pairs(const DataConfig& config) {
  try {
    const int64_t channels = image_channels(config.images);
    if (!config.images.size.empty()) {
      index_image_pairs(config.path, config.pairs.input, config.pairs.target);
      return pairs_info(config, {channels, config.images.size[0], config.images.size[1]});
    }
    const auto pairs = index_image_pairs(config.path, config.pairs.input, config.pairs.target);
    const Image first = decode_image(read_file_bytes(pairs.front().input), pairs.front().input, channels);
    return pairs_info(config, {channels, first.height, first.width});
  } catch (const DataError&) {
    return std::nullopt;  // loading says what is wrong
  }
}

}  // namespace trainer
