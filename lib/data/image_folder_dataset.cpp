// image_folder: one subfolder of images per class, as Keras's
// image_dataset_from_directory and torchvision's ImageFolder read them.
// Every image is decoded once, on data.workers threads, into one tensor.
#include <atomic>
#include <exception>
#include <thread>

#include "data/dataset_loaders.h"
#include "data/file_bytes.h"
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

FileList pick(const ImageFolderIndex& index, const std::vector<int64_t>& order, int64_t limit) {
  FileList list;
  for (int64_t i : order) {
    if (limit > 0 && static_cast<int64_t>(list.files.size()) == limit) break;
    list.files.push_back(index.files[static_cast<size_t>(i)]);
    list.labels.push_back(index.labels[static_cast<size_t>(i)]);
  }
  return list;
}

// Decodes every file of `list` on `workers` threads. A file that cannot be
// decoded is a DataError, or, with on_bad_file: skip, a warning, left out.
TensorDataset decode_all(const FileList& list, const DataConfig& config, const std::string& split) {
  const size_t n = list.files.size();
  std::vector<torch::Tensor> tensors(n);
  std::vector<std::string> problems(n);
  std::vector<std::exception_ptr> failures(n);  // anything else: out of memory, LibTorch
  std::atomic<size_t> next{0};
  const auto work = [&] {
    for (size_t i = next++; i < n; i = next++) {
      try {
        const Image image =
            decode_image(read_file_bytes(list.files[i]), list.files[i], image_channels(config.images));
        tensors[i] = image_tensor(image, config.images);
      } catch (const DataError& e) {
        problems[i] = e.what();
      } catch (...) {
        failures[i] = std::current_exception();
      }
    }
  };
  std::vector<std::thread> threads;
  for (int64_t t = 1; t < std::min<int64_t>(config.workers, static_cast<int64_t>(n)); ++t) threads.emplace_back(work);
  work();
  for (auto& thread : threads) thread.join();
  for (const auto& failure : failures)
    if (failure) std::rethrow_exception(failure);

  std::vector<torch::Tensor> kept;
  std::vector<int64_t> labels;
  int64_t skipped = 0;
  for (size_t i = 0; i < n; ++i) {
    if (!problems[i].empty()) {
      if (config.on_bad_file == BadFilePolicy::kError)
        throw DataError(problems[i], "remove or replace the file, or set data.on_bad_file: skip");
      if (++skipped <= 10) log().warn("skipping {}", problems[i]);
      continue;
    }
    if (!kept.empty() && tensors[i].sizes() != kept.front().sizes())
      throw DataError(list.files[i] + ": the image is " + std::to_string(tensors[i].size(1)) + " x " +
                          std::to_string(tensors[i].size(2)) + " pixels, the first one " +
                          std::to_string(kept.front().size(1)) + " x " + std::to_string(kept.front().size(2)),
                      "set data.images.size to bring every image to one size");
    kept.push_back(std::move(tensors[i]));
    labels.push_back(list.labels[i]);
  }
  if (skipped > 0) log().warn("{} {} image{} could not be decoded and {} left out", skipped, split,
                              skipped == 1 ? "" : "s", skipped == 1 ? "is" : "are");
  if (kept.empty()) throw DataError("no " + split + " images could be decoded");
  return {torch::stack(kept), torch::tensor(labels, torch::kInt64)};
}

// Training and validation files: the validation folder's, or Keras's seeded
// split of the training folder.
std::pair<FileList, FileList> split_files(const DataConfig& config, const ImageFolderIndex& train_index,
                                          ImageFolderIndex& valid_index) {
  const auto seed = static_cast<uint32_t>(config.split_seed);
  const auto count = static_cast<int64_t>(train_index.files.size());
  if (config.validation_path.empty()) {
    const FolderSplit split = split_like_keras(count, config.validation_split, seed);
    if (split.valid.empty() || split.train.empty())
      throw DataError(config.path + ": " + std::to_string(count) + " images are too few to hold out " +
                      std::to_string(config.validation_split) + " of them for validation");
    return {pick(train_index, split.train, config.max_train_samples),
            pick(train_index, split.valid, config.max_valid_samples)};
  }
  valid_index = index_image_folder(config.validation_path, &train_index.class_names);
  if (valid_index.files.empty()) throw DataError(config.validation_path + ": no images in its class subfolders");
  return {pick(train_index, shuffled_like_keras(count, seed), config.max_train_samples),
          pick(valid_index, shuffled_like_keras(static_cast<int64_t>(valid_index.files.size()), seed),
               config.max_valid_samples)};
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

DataSplits load_image_folder(const DataConfig& config) {
  Stopwatch clock;
  const ImageFolderIndex train_index = index_image_folder(config.path);
  if (train_index.files.empty())
    throw DataError(config.path + ": no images in its class subfolders (.png, .jpg, .jpeg, .bmp)");
  if (train_index.other_files > 0)
    log().info("{}: {} files without an image extension left out", config.path, train_index.other_files);
  ImageFolderIndex valid_index;
  const auto [train_files, valid_files] = split_files(config, train_index, valid_index);
  log().info("decoding {} + {} images of {} classes on {} thread{}", train_files.files.size(),
             valid_files.files.size(), train_index.class_names.size(), config.workers, config.workers == 1 ? "" : "s");
  DataSplits splits;
  splits.train = decode_all(train_files, config, "training");
  splits.valid = decode_all(valid_files, config, "validation");
  if (splits.train.inputs.sizes().slice(1) != splits.valid.inputs.sizes().slice(1))
    throw DataError((config.validation_path.empty() ? config.path : config.validation_path) +
                        ": the validation images are " +
                        std::to_string(splits.valid.inputs.size(2)) + " x " + std::to_string(splits.valid.inputs.size(3)) +
                        " pixels, the training images " + std::to_string(splits.train.inputs.size(2)) + " x " +
                        std::to_string(splits.train.inputs.size(3)),
                    "set data.images.size to bring every image to one size");
  splits.info = folder_info(train_index, splits.train.inputs.sizes().slice(1).vec());
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
