#include "data/image_folder_index.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <system_error>

#include "images/image_codec.h"
#include "data/keras_sequences.h"
#include "util/error.h"
#include "util/text.h"

namespace trainer {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> class_folders(const std::string& root) {
  std::error_code error;
  if (!fs::is_directory(root, error))
    throw DataError(root + (fs::exists(root, error) ? " is not a folder" : " does not exist"),
                    "data.path names the folder holding one subfolder of images per class");
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(root, error)) {
    const std::string name = entry.path().filename().string();
    if (entry.is_directory(error) && name.rfind('.', 0) != 0) names.push_back(name);
  }
  if (error) throw DataError(root + ": cannot list it (" + error.message() + ")");
  std::sort(names.begin(), names.end());
  return names;
}

// A class folder's images as Keras's iter_valid_files walks them: folders in
// sorted path order, each one's files in sorted name order.
void add_class_files(const std::string& folder, int64_t label, ImageFolderIndex& index) {
  std::map<std::string, std::vector<std::string>> files_by_folder{{folder, {}}};
  std::error_code error;
  for (fs::recursive_directory_iterator it(folder, error), end; !error && it != end; it.increment(error)) {
    if (index.not_files.leave_out(*it)) continue;
    if (it->is_regular_file(error)) files_by_folder[it->path().parent_path().string()].push_back(it->path().filename().string());
  }
  if (error) throw DataError(folder + ": cannot list it (" + error.message() + ")");
  for (auto& [dir, names] : files_by_folder) {
    std::sort(names.begin(), names.end());
    for (const auto& name : names) {
      if (!has_image_extension(name)) {
        ++index.other_files;
        continue;
      }
      index.files.push_back(dir + "/" + name);
      index.labels.push_back(label);
    }
  }
}

}  // namespace

ImageFolderIndex index_image_folder(const std::string& root, const std::vector<std::string>* classes) {
  const std::vector<std::string> found = class_folders(root);
  ImageFolderIndex index;
  if (classes) {
    for (const auto& name : found)
      if (std::find(classes->begin(), classes->end(), name) == classes->end())
        throw DataError(root + "/" + name + ": a class the training folder does not have (its classes: " +
                            join(*classes, ", ") + ")",
                        "the validation folder must hold the training folder's class subfolders");
    index.class_names = *classes;
  } else {
    if (found.empty())
      throw DataError(root + ": no class subfolders", "put each class's images in a subfolder named after it");
    index.class_names = found;
  }
  for (size_t label = 0; label < index.class_names.size(); ++label) {
    const std::string folder = root + "/" + index.class_names[label];
    std::error_code error;
    if (fs::is_directory(folder, error)) add_class_files(folder, static_cast<int64_t>(label), index);
  }
  return index;
}

std::vector<int64_t> shuffled_like_keras(int64_t n, uint32_t seed) { return numpy_legacy_permutation(n, seed); }

FolderSplit plan_folder_split(int64_t train_count, std::optional<int64_t> valid_count, const DataConfig& config,
                              const std::string& items) {
  const auto seed = static_cast<uint32_t>(config.split_seed);
  FolderSplit split;
  if (!valid_count) {
    split = split_like_keras(train_count, config.validation_split, seed);
    // validation_split is below 1 (the config's check): only validation can be empty.
    if (split.valid.empty() || split.train.empty()) {
      char fraction[32];
      std::snprintf(fraction, sizeof fraction, "%g", config.validation_split);
      const bool one = train_count == 1;
      throw DataError(config.path + ": " + std::to_string(train_count) + " " +
                          (one ? items.substr(0, items.size() - 1) + " is" : items + " are") +
                          " too few to hold out data.validation_split " + fraction +
                          " of them: the validation set would be empty",
                      "add " + items + ", change data.validation_split, or name a validation folder or file in "
                      "data.validation_path");
    }
  } else {
    split = {shuffled_like_keras(train_count, seed), shuffled_like_keras(*valid_count, seed)};
  }
  if (config.max_train_samples > 0 && static_cast<int64_t>(split.train.size()) > config.max_train_samples)
    split.train.resize(static_cast<size_t>(config.max_train_samples));
  if (config.max_valid_samples > 0 && static_cast<int64_t>(split.valid.size()) > config.max_valid_samples)
    split.valid.resize(static_cast<size_t>(config.max_valid_samples));
  return split;
}

FolderSplit split_like_keras(int64_t n, double fraction, uint32_t seed) {
  const std::vector<int64_t> order = numpy_legacy_permutation(n, seed);
  const auto held_out = static_cast<int64_t>(fraction * static_cast<double>(n));
  FolderSplit split;
  split.train.assign(order.begin(), order.end() - held_out);
  split.valid.assign(order.end() - held_out, order.end());
  return split;
}

}  // namespace trainer
