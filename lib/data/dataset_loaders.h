#pragma once
// One loader per data set kind; load_dataset() picks one.
#include <optional>

#include "data/dataset.h"

namespace trainer {

// Each kind's part of preview_dataset (data/dataset.h).
std::optional<DataInfo> preview_idx_dataset(const DataConfig& config, const std::string& name);
std::optional<DataInfo> preview_reuters(const DataConfig& config);
DataInfo preview_synthetic(const SyntheticConfig& config);
// mnist and fashion_mnist as Keras ships them: 28 x 28 grey, ten classes.
DataInfo keras_idx_info(const std::string& name);
std::optional<DataInfo> preview_image_folder(const DataConfig& config);
std::optional<DataInfo> preview_image_pairs(const DataConfig& config);
std::optional<DataInfo> preview_image_degrade(const DataConfig& config);

// mnist and fashion_mnist: the four IDX files (gzip'd or raw) in a folder.
DataSplits load_idx_dataset(const DataConfig& config, const std::string& name);

// The Keras "Reuters newswire topics" set, from reuters.npz or the SGML corpus.
DataSplits load_reuters(const DataConfig& config);

// One subfolder of images per class (data/image_folder_index.h).
// Training images augmented as data.augment says, from `seed`.
DataSplits load_image_folder(const DataConfig& config, int64_t seed);

// Input images and their targets, matched by path (data/image_pairs_index.h),
// as patches (data/image_patch_source.h); `seed` picks the windows.
DataSplits load_image_pairs(const DataConfig& config, int64_t seed);

// Sharp images and their degraded copies, made as they are used.
DataSplits load_image_degrade(const DataConfig& config, int64_t seed);

// Rows of numbers from a CSV, .npy or .npz file (data.tabular).
DataSplits load_tabular(const DataConfig& config);

// Random inputs with learnable labels, for tests and benchmarks.
DataSplits load_synthetic(const SyntheticConfig& config, int64_t seed);

}  // namespace trainer
