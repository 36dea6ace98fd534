#pragma once
// Image files for the image data set tests, written with trainer's own PNG
// encoder (tests/images/image_codec_test.cpp checks it against Pillow).
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "images/image_codec.h"
#include "test_paths.h"
#include "util/read_file.h"

namespace trainer::testing {

// The whole of a file, "" when it cannot be read.
inline std::string bytes_of(const std::string& path) { return read_text_file(path).value_or(""); }

// Pixels of random values: every window of it is different from the others.
inline Image random_image(int64_t height, int64_t width, int64_t channels, uint64_t seed) {
  std::mt19937_64 random(seed);
  Image image{height, width, channels, std::vector<uint8_t>(static_cast<size_t>(height * width * channels))};
  for (auto& v : image.pixels) v = static_cast<uint8_t>(random() % 256);
  return image;
}

// `image` as a PNG file at `path`, its folders made as needed.
inline void write_png(const std::string& path, const Image& image) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path, std::ios::binary) << encode_png(image, path);
}

// A PNG of `height` x `width` pixels, every channel of every pixel `value`.
inline void write_uniform_png(const std::string& path, int64_t height, int64_t width, uint8_t value,
                              int64_t channels = 3) {
  write_png(path, Image{height, width, channels,
                        std::vector<uint8_t>(static_cast<size_t>(height * width * channels), value)});
}

// write_images.py's files in a fresh folder TMP/NAME: images Pillow wrote,
// each beside the pixels Pillow decodes from it (NAME.EXT.pixels), and in
// other/ the files a test reads by name.
struct PillowImages {
  std::string dir;
  std::vector<std::string> images;  // the image files at the top of dir, sorted
};

// Pillow's images for a test that compares with them; nothing, the test
// said SKIPPED, where /usr/bin/python3 lacks PIL.
inline std::optional<PillowImages> pillow_images(const std::string& name) {
  if (!system_python_has("PIL")) {
    WARN("SKIPPED: needs Debian's python3-pil (/usr/bin/python3 with PIL)");
    return std::nullopt;
  }
  PillowImages written{fresh_dir(name), {}};
  REQUIRE(system_python_output(source_dir() + "/tests/images/write_images.py " + written.dir).has_value());
  for (const auto& entry : std::filesystem::directory_iterator(written.dir)) {
    const std::string path = entry.path().string();
    if (has_image_extension(path)) written.images.push_back(path);
  }
  std::sort(written.images.begin(), written.images.end());
  CHECK(written.images.size() == 16);  // what write_images.py writes: none missed, none extra
  return written;
}

}  // namespace trainer::testing
