#include "images/image_codec.h"

#include <png.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>

#include "images/image_rows.h"
#include "images/jpeg_errors.h"
#include "util/error.h"

namespace trainer {

bool has_image_extension(const std::string& name) {
  const auto dot = name.rfind('.');
  if (dot == std::string::npos) return false;
  std::string extension = name.substr(dot + 1);
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return extension == "png" || extension == "jpg" || extension == "jpeg" || extension == "bmp";
}

Image decode_image(std::string bytes, const std::string& name, int64_t channels) {
  ImageRowReader rows(std::move(bytes), name, channels);
  return rows.next_rows(rows.height());
}

std::string encode_png(const Image& image, const std::string& name) {
  png_image png;
  std::memset(&png, 0, sizeof png);
  png.version = PNG_IMAGE_VERSION;
  png.width = static_cast<png_uint_32>(image.width);
  png.height = static_cast<png_uint_32>(image.height);
  png.format = image.channels == 1 ? PNG_FORMAT_GRAY : PNG_FORMAT_RGB;
  png_alloc_size_t size = 0;
  if (!png_image_write_to_memory(&png, nullptr, &size, 0, image.pixels.data(), 0, nullptr))
    throw DataError(name + ": cannot encode a PNG (" + png.message + ")");
  std::string out(size, '\0');
  if (!png_image_write_to_memory(&png, out.data(), &size, 0, image.pixels.data(), 0, nullptr))
    throw DataError(name + ": cannot encode a PNG (" + png.message + ")");
  out.resize(size);
  return out;
}

namespace {

// No C++ object of its own between setjmp and longjmp (jpeg_errors.h). The
// encoded bytes are left in *buffer (malloc'd by libjpeg) even on failure.
bool write_jpeg(const Image& image, int quality, JpegErrors& errors, unsigned char** buffer, unsigned long* size) {
  jpeg_compress_struct info;
  info.err = jpeg_errors(errors);
  if (setjmp(errors.jump)) {
    jpeg_destroy_compress(&info);
    return false;
  }
  jpeg_create_compress(&info);
  jpeg_mem_dest(&info, buffer, size);
  info.image_width = static_cast<JDIMENSION>(image.width);
  info.image_height = static_cast<JDIMENSION>(image.height);
  info.input_components = static_cast<int>(image.channels);
  info.in_color_space = image.channels == 1 ? JCS_GRAYSCALE : JCS_RGB;
  jpeg_set_defaults(&info);
  jpeg_set_quality(&info, std::clamp(quality, 1, 100), TRUE);
  jpeg_start_compress(&info, TRUE);
  const size_t row_bytes = static_cast<size_t>(image.width * image.channels);
  while (info.next_scanline < info.image_height) {
    auto row = const_cast<JSAMPROW>(image.pixels.data() + static_cast<size_t>(info.next_scanline) * row_bytes);
    jpeg_write_scanlines(&info, &row, 1);
  }
  jpeg_finish_compress(&info);
  jpeg_destroy_compress(&info);
  return true;
}

}  // namespace

std::string encode_jpeg(const Image& image, int quality, const std::string& name) {
  JpegErrors errors;
  unsigned char* buffer = nullptr;
  unsigned long size = 0;
  const bool written = write_jpeg(image, quality, errors, &buffer, &size);
  std::string out = written ? std::string(reinterpret_cast<const char*>(buffer), size) : std::string();
  std::free(buffer);
  if (!written) throw DataError(name + ": cannot encode a JPEG (" + errors.message + ")");
  return out;
}

}  // namespace trainer
