#pragma once
// Decoded images kept in memory between epochs, as 8-bit pixels, up to a
// budget: the tutorial's lesson that decoding once and reading from memory
// after is what makes an image pipeline fast. Images past the budget (or all,
// with data.cache: none) are decoded again whenever they are used.
#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "images/image_codec.h"
#include "spec/experiment_config.h"

namespace trainer {

class ImageCache {
 public:
  // Decodes every file once, on data.workers threads, to check it and learn
  // its size (after data.images.size), keeping the pixels of those that fit
  // data.cache_limit. A file that cannot be decoded gets its DataError's
  // message in problem(i); other failures are rethrown.
  ImageCache(std::vector<std::string> files, const DataConfig& config);

  int64_t size() const { return static_cast<int64_t>(entries_.size()); }
  const std::string& file(int64_t i) const { return entry(i).file; }
  const std::string& problem(int64_t i) const { return entry(i).problem; }
  int64_t height(int64_t i) const { return entry(i).height; }
  int64_t width(int64_t i) const { return entry(i).width; }

  // Image i: the kept copy, or decoded now into `scratch` (a DataError if the
  // file has changed so that it no longer decodes).
  const Image& pixels(int64_t i, Image& scratch) const;

  int64_t cached_count() const;
  int64_t cached_bytes() const { return cached_bytes_; }
  // Decodes made since loading, by pixels(): what the budget costs.
  int64_t decodes_since_load() const { return decodes_.load(); }

 private:
  struct Entry {
    std::string file;
    std::string problem;
    int64_t height = 0, width = 0;
    bool cached = false;
    Image image;
  };
  const Entry& entry(int64_t i) const { return entries_[static_cast<size_t>(i)]; }
  Image decode(const std::string& file) const;

  ImagesConfig images_;
  std::vector<Entry> entries_;
  int64_t cached_bytes_ = 0;
  mutable std::atomic<int64_t> decodes_{0};
};

}  // namespace trainer
