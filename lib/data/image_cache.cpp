#include "data/image_cache.h"

#include <exception>
#include <limits>
#include <thread>

#include "formats/file_bytes.h"
#include "data/image_tensor.h"
#include "util/error.h"

namespace trainer {

Image ImageCache::decode(const std::string& file) const {
  return resized_image(decode_image(read_file_bytes(file), file, image_channels(images_)), images_);
}

ImageCache::ImageCache(std::vector<std::string> files, const DataConfig& config) : images_(config.images) {
  entries_.resize(files.size());
  for (size_t i = 0; i < files.size(); ++i) entries_[i].file = std::move(files[i]);
  const int64_t budget = config.cache == CacheMode::kNone ? 0
                         : config.cache_limit.mib == 0  ? std::numeric_limits<int64_t>::max()
                                                         : config.cache_limit.mib * 1024 * 1024;
  std::atomic<int64_t> reserved{0};
  std::atomic<size_t> next{0};
  std::vector<std::exception_ptr> failures(entries_.size());
  const auto work = [&] {
    for (size_t i = next++; i < entries_.size(); i = next++) {
      Entry& e = entries_[i];
      try {
        Image image = decode(e.file);
        e.height = image.height;
        e.width = image.width;
        // Kept while the budget lasts; which images those are may vary with
        // the threads' timing, what a sample holds never does.
        const auto bytes = static_cast<int64_t>(image.pixels.size());
        int64_t before = reserved.load();
        while (before <= budget - bytes && !reserved.compare_exchange_weak(before, before + bytes)) {
        }
        if (before <= budget - bytes) {
          e.image = std::move(image);
          e.cached = true;
        }
      } catch (const DataError& error) {
        e.problem = error.what();
      } catch (...) {
        failures[i] = std::current_exception();
      }
    }
  };
  std::vector<std::thread> threads;
  for (int64_t t = 1; t < std::min<int64_t>(config.workers, size()); ++t) threads.emplace_back(work);
  work();
  for (auto& thread : threads) thread.join();
  for (const auto& failure : failures)
    if (failure) std::rethrow_exception(failure);
  cached_bytes_ = reserved.load();
}

const Image& ImageCache::pixels(int64_t i, Image& scratch) const {
  const Entry& e = entry(i);
  if (e.cached) return e.image;
  ++decodes_;
  scratch = decode(e.file);
  if (scratch.height != e.height || scratch.width != e.width)
    throw DataError(e.file + " is now " + std::to_string(scratch.width) + " x " + std::to_string(scratch.height) +
                    " pixels, " + std::to_string(e.width) + " x " + std::to_string(e.height) + " when the data was loaded",
                    "leave the data set's files alone while a run reads them");
  return scratch;
}

int64_t ImageCache::cached_count() const {
  int64_t count = 0;
  for (const auto& e : entries_) count += e.cached ? 1 : 0;
  return count;
}

}  // namespace trainer
