// describe_from_config (data/dataset.h): the data's shapes from the
// experiment file alone, for a look at the model before the data is there.
#include "data/dataset.h"
#include "data/dataset_loaders.h"
#include "data/image_patch_splits.h"
#include "data/image_tensor.h"

namespace trainer {
namespace {

// The image size the file fixes, or an empty vector.
std::vector<int64_t> fixed_image_shape(const DataConfig& config, bool patches) {
  const int64_t channels = image_channels(config.images);
  if (patches && config.patch_size > 0) return {channels, config.patch_size, config.patch_size};
  if (!config.images.size.empty()) return {channels, config.images.size[0], config.images.size[1]};
  return {};
}

}  // namespace

ConfigDescription describe_from_config(const DataConfig& config) {
  switch (config.dataset) {
    case DatasetKind::kSynthetic:
      return {preview_synthetic(config.synthetic), {}};
    case DatasetKind::kFashionMnist:
      return {keras_idx_info("fashion_mnist"), {}};
    case DatasetKind::kMnist:
      return {keras_idx_info("mnist"), {}};
    case DatasetKind::kReuters: {
      // The preview decides what the file fixes; this only names the key for what it does not.
      std::optional<DataInfo> info = preview_reuters(config);
      if (!info)
        return {std::nullopt, "data.sequence_length (without it, the longest newswire decides the input's length)"};
      if (info->vocabulary_stand_in)
        return {std::nullopt, "data.num_words (with 0, the data's largest word id decides the vocabulary)"};
      return {std::move(info), {}};
    }
    case DatasetKind::kImagePairs:
    case DatasetKind::kImageDegrade: {
      std::vector<int64_t> shape = fixed_image_shape(config, true);
      if (!shape.empty()) return {patch_info(config, std::move(shape)), {}};
      return {std::nullopt, "data.patch_size or data.images.size (without them, the images' own size decides it)"};
    }
    case DatasetKind::kImageFolder: {
      std::vector<int64_t> shape = fixed_image_shape(config, false);
      if (shape.empty())
        return {std::nullopt, "data.images.size (without it, the images' own size decides the input)"};
      DataInfo info;  // the class folders decide `classes`: unknown here
      info.name = "image_folder";
      info.input_shape = std::move(shape);
      return {info, {}};
    }
    case DatasetKind::kTabular:
      return {std::nullopt, {}};  // a table's columns decide the inputs, and no key fixes them
  }
  return {std::nullopt, {}};
}

}  // namespace trainer
