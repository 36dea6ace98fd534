// image_pairs: input images and the target images a model should turn them
// into (blurred and sharp), matched by path (image_pairs_index.h), decoded
// once into the image cache on data.workers threads; the samples are windows
// of them cut as batches are assembled (image_patch_source.h).
#include "data/dataset_loaders.h"
#include "formats/file_bytes.h"
#include "data/image_folder_index.h"
#include "data/image_pairs_index.h"
#include "data/image_patch_splits.h"
#include "data/image_tensor.h"
#include "util/error.h"

namespace trainer {
namespace {

std::vector<ImagePair> pick(const std::vector<ImagePair>& pairs, const std::vector<int64_t>& order) {
  std::vector<ImagePair> picked;
  for (int64_t i : order) picked.push_back(pairs[static_cast<size_t>(i)]);
  return picked;
}

}  // namespace

DataSplits load_image_pairs(const DataConfig& config, int64_t seed) {
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
  // One cache, one budget: the training pairs' files first, then validation's.
  std::vector<std::string> files;
  std::vector<PatchPair> train_pairs, valid_pairs;
  for (const auto* split : {&train, &valid})
    for (const ImagePair& pair : *split) {
      (split == &train ? train_pairs : valid_pairs)
          .push_back({static_cast<int64_t>(files.size()), static_cast<int64_t>(files.size()) + 1});
      files.push_back(pair.input);
      files.push_back(pair.target);
    }
  return decode_patch_splits(std::move(files), train_pairs, valid_pairs, config, seed, "image pairs");
}

std::optional<DataInfo> preview_image_pairs(const DataConfig& config) {
  try {
    const auto pairs = index_image_pairs(config.path, config.pairs.input, config.pairs.target);
    return preview_patch_info(config, pairs.front().target);
  } catch (const DataError&) {
    return std::nullopt;  // loading says what is wrong
  }
}

}  // namespace trainer
