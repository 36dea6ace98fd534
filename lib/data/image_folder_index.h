#pragma once
// Which files an image folder holds and their classes, in the order Keras's
// image_dataset_from_directory indexes them, and its seeded split
// (torch-free).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "data/image_entries.h"
#include "spec/experiment_config.h"

namespace trainer {

struct ImageFolderIndex {
  std::vector<std::string> class_names;  // label i is class_names[i]
  std::vector<std::string> files;        // full paths
  std::vector<int64_t> labels;           // one per file
  int64_t other_files = 0;               // files without an image extension, left out
  LeftOutEntries not_files;              // named like images, not image files (a FIFO, a dangling link)
};

// Classes: the subfolders of `root` whose names do not start with '.', in
// sorted order (or, given `classes`, those names: a subfolder outside them is
// a DataError, a missing one holds no files). Files: each class folder
// walked to any depth, folders in sorted path order and the files of each in
// sorted name order, those with an image extension (image_codec.h) kept.
// Throws DataError when `root` is not a folder or has no class subfolders.
ImageFolderIndex index_image_folder(const std::string& root, const std::vector<std::string>* classes = nullptr);

// Keras's shuffle of a folder's files (numpy's RandomState(seed).shuffle),
// then its split: the last int(fraction * n) files validate, the rest train.
// Indices into the unshuffled list.
struct FolderSplit {
  std::vector<int64_t> train;
  std::vector<int64_t> valid;
};
FolderSplit split_like_keras(int64_t n, double fraction, uint32_t seed);

// The same shuffle, no split: the order in which Keras lists a separate
// validation folder's files.
std::vector<int64_t> shuffled_like_keras(int64_t n, uint32_t seed);

// Which items of a folder data set train and which validate, as `config`
// says: without a validation folder (`valid_count` empty) Keras's split of
// the `train_count` training items by data.validation_split; with one, all
// of each folder, shuffled. Both shortened to max_train_samples and
// max_valid_samples. Throws DataError, naming data.path and `items`
// ("images", "pairs"), when the split leaves a side empty.
FolderSplit plan_folder_split(int64_t train_count, std::optional<int64_t> valid_count, const DataConfig& config,
                              const std::string& items);

}  // namespace trainer
