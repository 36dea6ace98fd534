#pragma once
// Decoding PNG, JPEG and BMP files into 8-bit pixels, and encoding PNG and
// JPEG (torch-free).
//
// PNG goes through libpng and JPEG through libjpeg-turbo, Debian's maintained
// decoders (the ones OpenCV and Pillow use for these formats); BMP, a plain
// header and rows of pixels, is read here. OpenCV itself was not taken: its
// imgcodecs package in Debian 12 depends on GDAL, 195 packages and 170 MiB in
// all, which the GPU machine's bundle could not carry; libpng and
// libjpeg-turbo are 1.1 MiB. Resizing and blurring are tensor work, done with
// LibTorch.
//
// A file that is not a whole, valid image of a known format is a DataError
// naming it and what is wrong, never a crash or a half-decoded image: a JPEG
// cut short (which libjpeg would pad with grey and only warn about) is an
// error too.
#include <cstdint>
#include <string>
#include <vector>

namespace trainer {

enum class ImageFormat { kPng, kJpeg, kBmp };

// Pixels row by row, each pixel's channels together (height x width x
// channels): 1 channel (grey) or 3 (red, green, blue).
struct Image {
  int64_t height = 0;
  int64_t width = 0;
  int64_t channels = 0;
  std::vector<uint8_t> pixels;

  uint8_t at(int64_t row, int64_t column, int64_t channel) const {
    return pixels[static_cast<size_t>((row * width + column) * channels + channel)];
  }
};

// Whether `name` ends in an image extension trainer reads (.png, .jpg,
// .jpeg, .bmp, in any case).
bool has_image_extension(const std::string& name);

// Decodes `bytes` (the format told by its first bytes, whatever the name),
// `name` being used in errors. `channels` 1 gives grey (ITU-R 601 luma of
// colour images, as Pillow's "L"), 3 colour (grey replicated), 0 the file's
// own (grey stays grey; colour, palettes and alpha become RGB, alpha
// dropped). Throws DataError. image_rows.h reads the same a band of rows at
// a time.
Image decode_image(std::string bytes, const std::string& name, int64_t channels = 0);

// Lossless PNG and JPEG of `quality` (1..100) of `image`; throw DataError
// naming `name` when libpng or libjpeg refuse.
std::string encode_png(const Image& image, const std::string& name);
std::string encode_jpeg(const Image& image, int quality, const std::string& name);

}  // namespace trainer
