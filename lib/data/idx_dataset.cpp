#include <filesystem>

#include "data/data_root.h"
#include "data/dataset_loaders.h"
#include "formats/file_bytes.h"
#include "formats/idx_format.h"
#include "util/error.h"

namespace trainer {
namespace {

constexpr const char* kFashionMnistDir = "/usr/share/datasets/fashion-mnist";

// "train-images-idx3-ubyte" -> the .gz or the raw file in `dir`.
std::string find_idx_file(const std::string& dir, const std::string& stem) {
  for (const std::string& candidate : {dir + "/" + stem + ".gz", dir + "/" + stem})
    if (std::filesystem::exists(candidate)) return candidate;
  throw DataError("missing " + dir + "/" + stem + "[.gz]",
                  "set data.path to the folder holding the four IDX files" +
                      std::string(dir == kFashionMnistDir ? ", or: sudo apt-get install dataset-fashion-mnist" : ""));
}

// MNIST and Fashion-MNIST both have ten classes, by their definition.
constexpr int64_t kIdxClasses = 10;

// Decompressed no further than the size its header describes: a small
// gzip'd file that would inflate to gigabytes stops there.
IdxArray read_idx_file(const std::string& path) {
  const uint64_t size = idx_file_size(read_maybe_gzip_prefix(path, kMaxIdxHeaderBytes), path);
  check_content_size(path, size, "its IDX header");
  return parse_idx(read_maybe_gzip(path, size, "the size its IDX header describes"), path);
}

// The header's sizes, once the file is known to hold that much: a model is
// built from them before the data loads.
std::vector<int64_t> checked_idx_dims(const std::string& path) {
  const std::string head = read_maybe_gzip_prefix(path, kMaxIdxHeaderBytes);
  check_content_size(path, idx_file_size(head, path), "its IDX header");
  return idx_dims(head, path);
}

TensorDataset load_split(const std::string& dir, const std::string& prefix) {
  const std::string images_path = find_idx_file(dir, prefix + "-images-idx3-ubyte");
  const std::string labels_path = find_idx_file(dir, prefix + "-labels-idx1-ubyte");
  const IdxArray images = read_idx_file(images_path);
  const IdxArray labels = read_idx_file(labels_path);
  if (images.dims.size() != 3) throw DataError(images_path + ": expected 3 dimensions (N x rows x columns)");
  if (labels.dims.size() != 1 || labels.dims[0] != images.dims[0])
    throw DataError(labels_path + ": expected " + std::to_string(images.dims[0]) + " labels to match " + images_path);
  for (size_t i = 0; i < labels.values.size(); ++i)
    if (static_cast<unsigned char>(labels.values[i]) >= kIdxClasses)
      throw DataError(labels_path + ": label " + std::to_string(static_cast<unsigned char>(labels.values[i])) +
                          " at index " + std::to_string(i) + " is not one of the " + std::to_string(kIdxClasses) +
                          " classes (0 to " + std::to_string(kIdxClasses - 1) + ")",
                      "re-install or re-download the file");

  TensorDataset split;
  const auto bytes = torch::TensorOptions().dtype(torch::kUInt8);
  split.inputs = torch::from_blob(const_cast<char*>(images.values.data()),
                                  {images.dims[0], 1, images.dims[1], images.dims[2]}, bytes)
                     .to(torch::kFloat32)
                     .div_(255.0f);
  split.labels = torch::from_blob(const_cast<char*>(labels.values.data()), {labels.dims[0]}, bytes).to(torch::kInt64);
  return split;
}

// data.path when given; else the lab's data folder when it holds the set;
// else the default place.
std::string locate_idx_dataset(const DataConfig& config, const std::string& name) {
  if (!config.path.empty()) return config.path;
  const bool fashion = name == "fashion_mnist";
  const std::string in_root = in_data_root(fashion ? "fashion-mnist" : "mnist");
  if (!in_root.empty() && std::filesystem::is_directory(in_root)) return in_root;
  return fashion ? kFashionMnistDir : "data/mnist";
}

// The class names of the set's documentation (Fashion-MNIST's README; MNIST's
// classes are the digits themselves).
std::vector<std::string> idx_class_names(const std::string& name) {
  if (name == "fashion_mnist")
    return {"T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot"};
  return {"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"};
}

}  // namespace

DataInfo keras_idx_info(const std::string& name) {
  DataInfo info;
  info.name = name;
  info.input_shape = {1, 28, 28};
  info.classes = kIdxClasses;
  info.class_names = idx_class_names(name);
  return info;
}

std::optional<DataInfo> preview_idx_dataset(const DataConfig& config, const std::string& name) {
  try {
    const std::string path = find_idx_file(locate_idx_dataset(config, name), "train-images-idx3-ubyte");
    const std::vector<int64_t> dims = checked_idx_dims(path);
    if (dims.size() != 3) return std::nullopt;
    DataInfo info;
    info.name = name;
    info.input_shape = {1, dims[1], dims[2]};
    info.classes = kIdxClasses;
    info.class_names = idx_class_names(name);
    return info;
  } catch (const DataError&) {
    return std::nullopt;  // loading says what is wrong with the files
  }
}

DataSplits load_idx_dataset(const DataConfig& config, const std::string& name) {
  const std::string dir = locate_idx_dataset(config, name);
  DataSplits splits;
  splits.train = load_split(dir, "train");
  splits.valid = load_split(dir, "t10k");
  if (splits.train.inputs.sizes().slice(1) != splits.valid.inputs.sizes().slice(1))
    throw DataError(dir + ": the test images are " + std::to_string(splits.valid.inputs.size(2)) + "x" +
                        std::to_string(splits.valid.inputs.size(3)) + ", the training images " +
                        std::to_string(splits.train.inputs.size(2)) + "x" +
                        std::to_string(splits.train.inputs.size(3)),
                    "the four IDX files must come from one data set");
  splits.info.name = name;
  splits.info.input_shape = {1, splits.train.inputs.size(2), splits.train.inputs.size(3)};
  splits.info.classes = kIdxClasses;
  splits.info.class_names = idx_class_names(name);
  return splits;
}

}  // namespace trainer
