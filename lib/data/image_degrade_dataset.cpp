// image_degrade: any folder of sharp images as pairs, the inputs made from
// them as batches are assembled (motion blur, Gaussian blur, noise, JPEG:
// image_degrade.h), so the pairs need no disk and are new every epoch.
#include <optional>

#include "data/dataset_loaders.h"
#include "data/image_folder_index.h"
#include "data/image_pairs_index.h"
#include "data/image_patch_splits.h"
#include "util/error.h"

namespace trainer {

DataSplits load_image_degrade(const DataConfig& config, int64_t seed) {
  const std::vector<std::string> images = index_images_below(config.path);
  std::vector<std::string> valid_images;
  std::optional<int64_t> valid_count;
  if (!config.validation_path.empty()) {
    valid_images = index_images_below(config.validation_path);
    valid_count = static_cast<int64_t>(valid_images.size());
  }
  const FolderSplit split = plan_folder_split(static_cast<int64_t>(images.size()), valid_count, config, "images");
  // One cache, one budget: the training images first.
  std::vector<std::string> files;
  std::vector<PatchPair> train, valid;
  for (int64_t i : split.train) {
    train.push_back({-1, static_cast<int64_t>(files.size())});
    files.push_back(images[static_cast<size_t>(i)]);
  }
  for (int64_t i : split.valid) {
    valid.push_back({-1, static_cast<int64_t>(files.size())});
    files.push_back(valid_count ? valid_images[static_cast<size_t>(i)] : images[static_cast<size_t>(i)]);
  }
  return decode_patch_splits(std::move(files), train, valid, config, seed, "sharp images");
}

std::optional<DataInfo> preview_image_degrade(const DataConfig& config) {
  try {
    return preview_patch_info(config, index_images_below(config.path).front());
  } catch (const DataError&) {
    return std::nullopt;  // loading says what is wrong
  }
}

}  // namespace trainer
