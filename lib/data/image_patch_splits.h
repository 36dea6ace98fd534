#pragma once
// What the image-to-image data sets (image_pairs, image_degrade) share once
// their files are indexed and decoded into a cache: leaving out pairs with a
// bad file, checking that every window fits, and the two splits' sources.
#include <memory>
#include <string>
#include <vector>

#include "data/dataset.h"
#include "data/image_cache.h"
#include "data/image_patch_source.h"

namespace trainer {

// `pairs` less those with a file the cache could not decode, as
// data.on_bad_file says (an error, or a warning and a count). `what`:
// "training pairs", "validation images"...
std::vector<PatchPair> usable_pairs(const ImageCache& cache, const std::vector<PatchPair>& pairs,
                                    const DataConfig& config, const std::string& what);

// The splits, their samples made by ImagePatchSources over `cache`. Throws a
// DataError naming the file when a pair's two images differ in size, an
// image is smaller than data.patch_size, or (without patch_size) the images
// are not all of one size.
DataSplits patch_splits(std::shared_ptr<const ImageCache> cache, const std::vector<PatchPair>& train,
                        const std::vector<PatchPair>& valid, const DataConfig& config, int64_t seed);

// All of it, from the files: decodes `files` into one cache (one budget,
// the training files first), leaves out the pairs with a bad file and makes
// the splits. `items` names them in messages ("pairs", "images").
DataSplits decode_patch_splits(std::vector<std::string> files, const std::vector<PatchPair>& train,
                               const std::vector<PatchPair>& valid, const DataConfig& config, int64_t seed,
                               const std::string& items);

// DataInfo of an image-to-image data set whose samples are `shape`.
DataInfo patch_info(const DataConfig& config, std::vector<int64_t> shape);

// The DataInfo loading will give, from the config and (without patch_size
// or images.size) the size of `first_file`. Throws DataError.
DataInfo preview_patch_info(const DataConfig& config, const std::string& first_file);

}  // namespace trainer
