#include <filesystem>

#include "data/data_root.h"
#include "data/dataset_loaders.h"
#include "data/file_bytes.h"
#include "data/idx_format.h"
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

TensorDataset load_split(const std::string& dir, const std::string& prefix) {
  const std::string images_path = find_idx_file(dir, prefix + "-images-idx3-ubyte");
  const std::string labels_path = find_idx_file(dir, prefix + "-labels-idx1-ubyte");
  const IdxArray images = parse_idx(read_maybe_gzip(images_path), images_path);
  const IdxArray labels = parse_idx(read_maybe_gzip(labels_path), labels_path);
  if (images.dims.size() != 3) throw DataError(images_path + ": expected 3 dimensions (N x rows x columns)");
  if (labels.dims.size() != 1 || labels.dims[0] != images.dims[0])
    throw DataError(labels_path + ": expected " + std::to_string(images.dims[0]) + " labels to match " + images_path);

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

}  // namespace

DataSplits load_idx_dataset(const DataConfig& config, const std::string& name) {
  const std::string dir = locate_idx_dataset(config, name);
  DataSplits splits;
  splits.train = load_split(dir, "train");
  splits.valid = load_split(dir, "t10k");
  splits.info.name = name;
  splits.info.input_shape = {1, splits.train.inputs.size(2), splits.train.inputs.size(3)};
  splits.info.classes = std::max(splits.train.labels.max().item<int64_t>(), splits.valid.labels.max().item<int64_t>()) + 1;
  return splits;
}

}  // namespace trainer
