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

// A PNG of `height` x `width` pixels, every channel of every pixel `value`;
// its folders made as needed.
inline void write_uniform_png(const std::string& path, int64_t height, int64_t width, uint8_t value,
                              int64_t channels = 3) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  const Image image{height, width, channels, std::vector<uint8_t>(static_cast<size_t>(height * width * channels), value)};
  std::ofstream(path, std::ios::binary) << encode_png(image, path);
}

// Pixels of random values: every window of it is different from the others.
inline Image random_image(int64_t height, int64_t width, int64_t channels, uint64_t seed) {
  std::mt19937_64 random(seed);
  Image image{height, width, channels, std::vector<uint8_t>(static_cast<size_t>(height * width * channels))};
  for (auto& v : image.pixels) v = static_cast<uint8_t>(random() % 256);
  return image;
}

inline void write_png(const std::string& path, const Image& image) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path, std::ios::binary) << encode_png(image, path);
}

// A fresh folder TMP/NAME holding write_images.py's files (images Pillow
// wrote, and the pixels Pillow decodes from them); nothing where
// /usr/bin/python3 lacks PIL, for the caller to say SKIPPED.
inline std::optional<std::string> pillow_images(const std::string& name) {
  if (!system_python_has("PIL")) return std::nullopt;
  const std::string dir = fresh_dir(name);
  REQUIRE(system_python_output(source_dir() + "/tests/images/write_images.py " + dir).has_value());
  return dir;
}

// The image files at the top of a pillow_images folder, sorted (its
// subfolders hold the files a test reads by name).
inline std::vector<std::string> image_files_in(const std::string& dir) {
  std::vector<std::string> paths;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string path = entry.path().string();
    if (has_image_extension(path)) paths.push_back(path);
  }
  std::sort(paths.begin(), paths.end());
  return paths;
}

}  // namespace trainer::testing
