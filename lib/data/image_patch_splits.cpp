#include "data/image_patch_splits.h"

#include "formats/file_bytes.h"
#include "data/image_files.h"
#include "data/image_tensor.h"
#include "util/error.h"
#include "util/logging.h"
#include "util/stopwatch.h"

namespace trainer {
namespace {

std::string size_text(const ImageCache& cache, int64_t i) {
  return std::to_string(cache.width(i)) + " x " + std::to_string(cache.height(i));
}

// Every window the source will cut lies inside its images.
void check_sizes(const ImageCache& cache, const std::vector<PatchPair>& pairs, const DataConfig& config,
                 const PatchPair& first) {
  for (const PatchPair& pair : pairs) {
    const int64_t t = pair.target;
    if (pair.input >= 0 && (cache.height(pair.input) != cache.height(t) || cache.width(pair.input) != cache.width(t)))
      throw DataError(cache.file(pair.input) + " is " + size_text(cache, pair.input) + " pixels and its target " +
                          cache.file(t) + " " + size_text(cache, t),
                      "the two images of a pair must have one size");
    if (config.patch_size > 0) {
      if (cache.height(t) < config.patch_size || cache.width(t) < config.patch_size)
        throw DataError(cache.file(t) + ": the image is " + size_text(cache, t) + " pixels, smaller than data.patch_size " +
                            std::to_string(config.patch_size),
                        "lower data.patch_size, or set data.images.size to enlarge the images");
    } else if (cache.height(t) != cache.height(first.target) || cache.width(t) != cache.width(first.target)) {
      throw DataError(cache.file(t) + ": the image is " + size_text(cache, t) + " pixels, " +
                          cache.file(first.target) + " " + size_text(cache, first.target),
                      "set data.patch_size to cut windows of one size, or data.images.size to resize every image");
    }
  }
}

}  // namespace

std::vector<PatchPair> usable_pairs(const ImageCache& cache, const std::vector<PatchPair>& pairs,
                                    const DataConfig& config, const std::string& what) {
  std::vector<std::string> problems;
  for (const PatchPair& pair : pairs)
    problems.push_back(pair.input >= 0 && !cache.problem(pair.input).empty() ? cache.problem(pair.input)
                                                                            : cache.problem(pair.target));
  const std::vector<bool> usable = usable_files(problems, config, what);
  std::vector<PatchPair> kept;
  for (size_t i = 0; i < pairs.size(); ++i)
    if (usable[i]) kept.push_back(pairs[i]);
  if (kept.empty()) throw DataError("none of the " + what + " could be decoded");
  return kept;
}

DataInfo patch_info(const DataConfig& config, std::vector<int64_t> shape) {
  DataInfo info;
  info.name = to_string(config.dataset);
  info.target_shape = shape;
  info.input_shape = std::move(shape);
  info.value_range = config.images.value_range();
  return info;
}

DataInfo preview_patch_info(const DataConfig& config, const std::string& first_file) {
  const int64_t channels = image_channels(config.images);
  if (config.patch_size > 0) return patch_info(config, {channels, config.patch_size, config.patch_size});
  if (!config.images.size.empty()) return patch_info(config, {channels, config.images.size[0], config.images.size[1]});
  const Image first = decode_image(read_file_bytes(first_file), first_file, channels);
  return patch_info(config, {channels, first.height, first.width});
}

DataSplits patch_splits(std::shared_ptr<const ImageCache> cache, const std::vector<PatchPair>& train,
                        const std::vector<PatchPair>& valid, const DataConfig& config, int64_t seed) {
  check_sizes(*cache, train, config, train.front());
  check_sizes(*cache, valid, config, train.front());
  log().info("image cache: {} of {} images kept decoded ({:.1f} MiB){}", cache->cached_count(), cache->size(),
             static_cast<double>(cache->cached_bytes()) / (1024.0 * 1024.0),
             cache->cached_count() < cache->size() ? "; the others are decoded each time they are used" : "");
  auto train_source = std::make_shared<const ImagePatchSource>(cache, train, config, seed, true);
  auto valid_source = std::make_shared<const ImagePatchSource>(cache, valid, config, seed, false);
  DataSplits splits;
  splits.info = patch_info(config, train_source->sample_shape());
  splits.train = source_dataset(std::move(train_source));
  splits.valid = source_dataset(std::move(valid_source));
  return splits;
}

DataSplits decode_patch_splits(std::vector<std::string> files, const std::vector<PatchPair>& train,
                               const std::vector<PatchPair>& valid, const DataConfig& config, int64_t seed,
                               const std::string& items) {
  Stopwatch clock;
  log().info("decoding {} + {} {} on {} thread{}", train.size(), valid.size(), items, config.workers,
             config.workers == 1 ? "" : "s");
  auto cache = std::make_shared<const ImageCache>(std::move(files), config);
  DataSplits splits = patch_splits(cache, usable_pairs(*cache, train, config, "training " + items),
                                   usable_pairs(*cache, valid, config, "validation " + items), config, seed);
  log().info("decoded in {:.1f} s", clock.seconds());
  return splits;
}

}  // namespace trainer
