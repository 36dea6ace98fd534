// image_folder: one subfolder of images per class, as Keras's
// image_dataset_from_directory and torchvision's ImageFolder read them.
// Every image is decoded once, on data.workers threads (image_files.h),
// into one tensor.
#include "data/augmented_images.h"
#include "data/dataset_loaders.h"
#include "formats/file_bytes.h"
#include "data/image_files.h"
#include "data/image_folder_index.h"
#include "data/image_tensor.h"
#include "util/error.h"
#include "util/logging.h"
#include "util/stopwatch.h"

namespace trainer {
namespace {

// The files of one split with their labels.
struct FileList {
  std::vector<std::string> files;
  std::vector<int64_t> labels;
};

FileList pick(const ImageFolderIndex& index, const std::vector<int64_t>& order) {
  FileList list;
  for (int64_t i : order) {
    list.files.push_back(index.files[static_cast<size_t>(i)]);
    list.labels.push_back(index.labels[static_cast<size_t>(i)]);
  }
  return list;
}

// Every image of `list` decoded and stacked; bad files as on_bad_file says.
TensorDataset decode_all(const FileList& list, const DataConfig& config, const std::string& split) {
  DecodedFiles decoded = decode_image_files(list.files, config);
  const std::vector<bool> usable = usable_files(decoded.problems, config, split + " images");
  std::vector<torch::Tensor> kept;
  std::vector<int64_t> labels;
  for (size_t i = 0; i < list.files.size(); ++i) {
    if (!usable[i]) continue;
    if (!kept.empty() && decoded.tensors[i].sizes() != kept.front().sizes())
      throw DataError(list.files[i] + ": the image is " + pixel_size_text(decoded.tensors[i]) +
                          " pixels, the first one " + pixel_size_text(kept.front()),
                      "set data.images.size to bring every image to one size");
    kept.push_back(std::move(decoded.tensors[i]));
    labels.push_back(list.labels[i]);
  }
  if (kept.empty()) throw DataError("no " + split + " images could be decoded");
  return {torch::stack(kept), torch::tensor(labels, torch::kInt64)};
}

// Training and validation files: the validation folder's, or Keras's seeded
// split of the training folder.
std::pair<FileList, FileList> split_files(const DataConfig& config, const ImageFolderIndex& train_index) {
  const auto count = static_cast<int64_t>(train_index.files.size());
  if (config.validation_path.empty()) {
    const FolderSplit split = plan_folder_split(count, std::nullopt, config, "images");
    return {pick(train_index, split.train), pick(train_index, split.valid)};
  }
  const ImageFolderIndex valid_index = index_image_folder(config.validation_path, &train_index.class_names);
  if (valid_index.files.empty()) throw DataError(config.validation_path + ": no images in its class subfolders");
  const FolderSplit split =
      plan_folder_split(count, static_cast<int64_t>(valid_index.files.size()), config, "images");
  return {pick(train_index, split.train), pick(valid_index, split.valid)};
}

DataInfo folder_info(const ImageFolderIndex& index, std::vector<int64_t> shape) {
  DataInfo info;
  info.name = "image_folder";
  info.input_shape = std::move(shape);
  info.classes = static_cast<int64_t>(index.class_names.size());
  info.class_names = index.class_names;
  return info;
}

}  // namespace

DataSplits load_image_folder(const DataConfig& config, int64_t seed) {
  Stopwatch clock;
  const ImageFolderIndex train_index = index_image_folder(config.path);
  if (train_index.files.empty())
    throw DataError(config.path + ": no images in its class subfolders (.png, .jpg, .jpeg, .bmp)");
  if (train_index.other_files > 0)
    log().info("{}: {} files without an image extension left out", config.path, train_index.other_files);
  train_index.not_files.warn(config.path);
  const auto [train_files, valid_files] = split_files(config, train_index);
  log().info("decoding {} + {} images of {} classes on {} thread{}", train_files.files.size(),
             valid_files.files.size(), train_index.class_names.size(), config.workers, config.workers == 1 ? "" : "s");
  DataSplits splits;
  splits.train = decode_all(train_files, config, "training");
  splits.valid = decode_all(valid_files, config, "validation");
  require_one_size(splits, config);
  splits.info = folder_info(train_index, splits.train.inputs.sizes().slice(1).vec());
  if (config.augment.any()) splits.train = augmented_images(std::move(splits.train), config, seed);
  log().info("decoded in {:.1f} s", clock.seconds());
  return splits;
}

std::optional<DataInfo> preview_image_folder(const DataConfig& config) {
  try {
    const ImageFolderIndex index = index_image_folder(config.path);
    if (index.files.empty()) return std::nullopt;
    const int64_t channels = image_channels(config.images);
    if (!config.images.size.empty()) return folder_info(index, {channels, config.images.size[0], config.images.size[1]});
    const Image first = decode_image(read_file_bytes(index.files.front()), index.files.front(), channels);
    return folder_info(index, {channels, first.height, first.width});
  } catch (const DataError&) {
    return std::nullopt;  // loading says what is wrong
  }
}

}  // namespace trainer
