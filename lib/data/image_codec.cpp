#include "data/image_codec.h"

#include <png.h>
// jpeglib.h needs size_t and FILE declared before it.
#include <cstdio>
#include <cstring>
#include <csetjmp>
#include <jpeglib.h>
#include <jerror.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "util/error.h"

namespace trainer {
namespace {

// A bound on decoded pixels, far above any training image (a 16k x 16k
// photograph), so that a hostile header cannot ask for terabytes.
constexpr int64_t kMaxPixels = int64_t{1} << 28;

void check_size(int64_t width, int64_t height, const std::string& name) {
  if (width <= 0 || height <= 0) throw DataError(name + ": the image has no pixels (" + std::to_string(width) + " x " +
                                                 std::to_string(height) + ")");
  if (width > kMaxPixels / height)
    throw DataError(name + ": the image is " + std::to_string(width) + " x " + std::to_string(height) +
                    " pixels, more than trainer decodes (2^28); a corrupt header?");
}

// Pillow's "L": ITU-R 601-2 luma in 16-bit fixed point, rounded.
uint8_t luma(uint8_t r, uint8_t g, uint8_t b) {
  return static_cast<uint8_t>((r * 19595u + g * 38470u + b * 7471u + 0x8000u) >> 16);
}

// `image` with `channels` (1 or 3) channels; 0 keeps it as it is.
Image with_channels(Image image, int64_t channels) {
  if (channels == 0 || channels == image.channels) return image;
  Image out{image.height, image.width, channels, {}};
  const size_t pixels = static_cast<size_t>(image.height * image.width);
  out.pixels.resize(pixels * static_cast<size_t>(channels));
  for (size_t i = 0; i < pixels; ++i) {
    if (channels == 1) {
      out.pixels[i] = luma(image.pixels[3 * i], image.pixels[3 * i + 1], image.pixels[3 * i + 2]);
    } else {
      std::fill_n(out.pixels.begin() + static_cast<std::ptrdiff_t>(3 * i), 3, image.pixels[i]);
    }
  }
  return out;
}

Image decode_png(const std::string& bytes, const std::string& name) {
  png_image png;
  std::memset(&png, 0, sizeof png);
  png.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_memory(&png, bytes.data(), bytes.size()))
    throw DataError(name + ": not a valid PNG (" + png.message + ")");
  try {
    check_size(png.width, png.height, name);
  } catch (...) {
    png_image_free(&png);
    throw;
  }
  // Alpha is read and then dropped, so the colours stay as stored (libpng
  // would otherwise compose them onto a background).
  const bool colour = (png.format & PNG_FORMAT_FLAG_COLOR) != 0;
  const bool alpha = (png.format & PNG_FORMAT_FLAG_ALPHA) != 0;
  png.format = colour ? (alpha ? PNG_FORMAT_RGBA : PNG_FORMAT_RGB) : (alpha ? PNG_FORMAT_GA : PNG_FORMAT_GRAY);
  std::vector<uint8_t> read(PNG_IMAGE_SIZE(png));
  if (!png_image_finish_read(&png, nullptr, read.data(), 0, nullptr)) {
    const std::string why = png.message;
    png_image_free(&png);
    throw DataError(name + ": the PNG is damaged or cut short (" + why + ")");
  }
  // libpng stops once it has the pixels; a file cut in its last chunk
  // (IEND, whose CRC is always the same) is cut all the same.
  if (bytes.find(std::string("\0\0\0\0IEND\xae\x42\x60\x82", 12)) == std::string::npos)
    throw DataError(name + ": the PNG is cut short (no IEND chunk at its end)");
  Image image{png.height, png.width, colour ? 3 : 1, {}};
  if (!alpha) {
    image.pixels = std::move(read);
    return image;
  }
  const size_t stored = static_cast<size_t>(image.channels) + 1;
  const size_t pixels = static_cast<size_t>(image.height * image.width);
  image.pixels.resize(pixels * static_cast<size_t>(image.channels));
  for (size_t i = 0; i < pixels; ++i)
    std::copy_n(read.begin() + static_cast<std::ptrdiff_t>(i * stored), image.channels,
                image.pixels.begin() + static_cast<std::ptrdiff_t>(i * static_cast<size_t>(image.channels)));
  return image;
}

// libjpeg reports errors through a callback that must not return: it jumps
// back to decode_jpeg with the message kept here. Warnings about the data
// (cut short, corrupt segments) count as errors too, but for extraneous
// bytes between segments, which cameras write and every decoder skips.
struct JpegErrors {
  jpeg_error_mgr manager;
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX] = {};
  bool data_warning = false;
};

void jpeg_fail(j_common_ptr info) {
  auto* errors = reinterpret_cast<JpegErrors*>(info->err);
  (*info->err->format_message)(info, errors->message);
  std::longjmp(errors->jump, 1);
}

void jpeg_message(j_common_ptr info, int level) {
  auto* errors = reinterpret_cast<JpegErrors*>(info->err);
  if (level >= 0 || info->err->msg_code == JWRN_EXTRANEOUS_DATA || errors->data_warning) return;
  errors->data_warning = true;
  (*info->err->format_message)(info, errors->message);
}

// The decompression itself, apart from any C++ object of its own: libjpeg's
// errors longjmp back here. False with errors.message set on failure.
bool read_jpeg(const std::string& bytes, JpegErrors& errors, Image& image) {
  jpeg_decompress_struct info;
  info.err = jpeg_std_error(&errors.manager);
  errors.manager.error_exit = jpeg_fail;
  errors.manager.emit_message = jpeg_message;
  if (setjmp(errors.jump)) {
    jpeg_destroy_decompress(&info);
    return false;
  }
  jpeg_create_decompress(&info);
  jpeg_mem_src(&info, reinterpret_cast<const unsigned char*>(bytes.data()), static_cast<unsigned long>(bytes.size()));
  jpeg_read_header(&info, TRUE);
  // Checked before jpeg_start_decompress: a progressive JPEG's decoder
  // allocates coefficients for the whole declared image there, so a header
  // claiming 65535 x 65535 asked for gigabytes before the check below ran.
  // The memory cap bounds what a file within the pixel limit can take
  // (coefficients at 2 bytes each for up to 3 components, plus slack); a
  // header with more components than that fails with libjpeg's error.
  if (info.image_height == 0 || info.image_width > kMaxPixels / info.image_height) {
    std::snprintf(errors.message, sizeof errors.message, "%u x %u pixels, more than trainer decodes (2^28)",
                  info.image_width, info.image_height);
    jpeg_destroy_decompress(&info);
    return false;
  }
  info.mem->max_memory_to_use = static_cast<long>(int64_t{info.image_width} * info.image_height * 3 * 2 + (64 << 20));
  if (info.jpeg_color_space == JCS_CMYK || info.jpeg_color_space == JCS_YCCK) {
    std::snprintf(errors.message, sizeof errors.message, "CMYK JPEGs are not read; convert it to RGB");
    jpeg_destroy_decompress(&info);
    return false;
  }
  info.out_color_space = info.num_components == 1 ? JCS_GRAYSCALE : JCS_RGB;
  jpeg_start_decompress(&info);
  if (info.output_height == 0 || info.output_width > kMaxPixels / info.output_height) {
    std::snprintf(errors.message, sizeof errors.message, "%u x %u pixels", info.output_width, info.output_height);
    jpeg_destroy_decompress(&info);
    return false;
  }
  image.height = info.output_height;
  image.width = info.output_width;
  image.channels = info.output_components;
  image.pixels.resize(static_cast<size_t>(image.height * image.width * image.channels));
  const size_t row_bytes = static_cast<size_t>(image.width * image.channels);
  while (info.output_scanline < info.output_height) {
    JSAMPROW row = image.pixels.data() + static_cast<size_t>(info.output_scanline) * row_bytes;
    jpeg_read_scanlines(&info, &row, 1);
  }
  jpeg_finish_decompress(&info);
  jpeg_destroy_decompress(&info);
  return true;
}

Image decode_jpeg(const std::string& bytes, const std::string& name) {
  JpegErrors errors;
  Image image;
  if (!read_jpeg(bytes, errors, image)) throw DataError(name + ": not a valid JPEG (" + errors.message + ")");
  if (errors.data_warning) throw DataError(name + ": the JPEG is damaged or cut short (" + errors.message + ")");
  return image;
}

// Little-endian fields of a BMP header.
uint32_t le32(const std::string& b, size_t at) {
  return static_cast<uint32_t>(static_cast<uint8_t>(b[at])) | static_cast<uint32_t>(static_cast<uint8_t>(b[at + 1])) << 8 |
         static_cast<uint32_t>(static_cast<uint8_t>(b[at + 2])) << 16 |
         static_cast<uint32_t>(static_cast<uint8_t>(b[at + 3])) << 24;
}
uint16_t le16(const std::string& b, size_t at) {
  return static_cast<uint16_t>(static_cast<uint8_t>(b[at]) | static_cast<uint8_t>(b[at + 1]) << 8);
}

// One channel of a bit-field pixel scaled to 8 bits (a 5-bit 31 -> 255).
uint8_t field(uint32_t pixel, uint32_t mask) {
  if (mask == 0) return 0;
  int shift = 0;
  while (!((mask >> shift) & 1u)) ++shift;
  const uint32_t max = mask >> shift;
  return static_cast<uint8_t>((((pixel & mask) >> shift) * 255u + max / 2) / max);
}

// Windows bitmaps: BITMAPCOREHEADER or BITMAPINFOHEADER and its successors;
// 1, 4, 8 bits through a palette, 16 and 32 bits through bit fields, 24
// bits BGR; bottom-up or top-down rows padded to 4 bytes. RLE is refused.
Image decode_bmp(const std::string& b, const std::string& name) {
  const auto bad = [&](const std::string& why) { return DataError(name + ": not a valid BMP (" + why + ")"); };
  if (b.size() < 26) throw bad("the header is cut short");
  const uint32_t offset = le32(b, 10), header = le32(b, 14);
  const bool core = header == 12;
  if (!core && header < 40) throw bad("unknown header size " + std::to_string(header));
  if (b.size() < 14 + static_cast<size_t>(header)) throw bad("the header is cut short");
  const int64_t width = core ? le16(b, 18) : static_cast<int32_t>(le32(b, 18));
  const int64_t signed_height = core ? le16(b, 20) : static_cast<int32_t>(le32(b, 22));
  const int bits = core ? le16(b, 24) : le16(b, 28);
  const uint32_t compression = core ? 0 : le32(b, 30);
  const bool top_down = signed_height < 0;
  const int64_t height = top_down ? -signed_height : signed_height;
  check_size(width, height, name);
  if (compression != 0 && compression != 3) throw bad("compression " + std::to_string(compression) + " (RLE or embedded) is not read");
  if (bits != 1 && bits != 4 && bits != 8 && bits != 16 && bits != 24 && bits != 32)
    throw bad(std::to_string(bits) + " bits per pixel");

  uint32_t masks[3] = {0x00ff0000u, 0x0000ff00u, 0x000000ffu};
  if (bits == 16) masks[0] = 0x7c00u, masks[1] = 0x03e0u, masks[2] = 0x001fu;
  if (compression == 3) {
    // The masks follow a 40-byte header, or are part of a longer one.
    if (b.size() < 14 + 40 + 12) throw bad("the bit-field masks are cut short");
    for (int i = 0; i < 3; ++i) masks[i] = le32(b, 54 + 4 * static_cast<size_t>(i));
  }
  std::vector<uint8_t> palette;  // RGB triplets
  if (bits <= 8) {
    const size_t entry = core ? 3 : 4;
    const uint32_t used = core ? 0 : le32(b, 46);
    const size_t colours = used ? used : (size_t{1} << bits);
    const size_t at = 14 + header;
    if (colours > 256 || at + colours * entry > b.size()) throw bad("the palette is cut short");
    for (size_t i = 0; i < colours; ++i)
      palette.insert(palette.end(), {static_cast<uint8_t>(b[at + i * entry + 2]), static_cast<uint8_t>(b[at + i * entry + 1]),
                                     static_cast<uint8_t>(b[at + i * entry])});
  }
  const size_t stride = ((static_cast<size_t>(width) * static_cast<size_t>(bits) + 31) / 32) * 4;
  if (offset > b.size() || stride * static_cast<size_t>(height) > b.size() - offset)
    throw bad("the pixel rows are cut short: " + std::to_string(b.size()) + " bytes for " + std::to_string(width) + " x " +
              std::to_string(height) + " pixels of " + std::to_string(bits) + " bits");

  Image image{height, width, 3, std::vector<uint8_t>(static_cast<size_t>(width * height * 3))};
  for (int64_t row = 0; row < height; ++row) {
    const size_t start = offset + stride * static_cast<size_t>(top_down ? row : height - 1 - row);
    uint8_t* out = image.pixels.data() + static_cast<size_t>(row * width * 3);
    for (int64_t x = 0; x < width; ++x, out += 3) {
      if (bits <= 8) {
        const size_t bit = static_cast<size_t>(x) * static_cast<size_t>(bits);
        const auto byte = static_cast<uint8_t>(b[start + bit / 8]);
        const size_t index = (byte >> (8 - bits - bit % 8)) & ((1u << bits) - 1);
        if (3 * index + 2 >= palette.size()) throw bad("a pixel names colour " + std::to_string(index) + " past the palette");
        std::copy_n(palette.begin() + static_cast<std::ptrdiff_t>(3 * index), 3, out);
      } else if (bits == 24) {
        const size_t at = start + static_cast<size_t>(x) * 3;
        out[0] = static_cast<uint8_t>(b[at + 2]), out[1] = static_cast<uint8_t>(b[at + 1]), out[2] = static_cast<uint8_t>(b[at]);
      } else {
        const size_t at = start + static_cast<size_t>(x) * static_cast<size_t>(bits / 8);
        const uint32_t pixel = bits == 16 ? le16(b, at) : le32(b, at);
        for (int c = 0; c < 3; ++c) out[c] = field(pixel, masks[c]);
      }
    }
  }
  return image;
}

}  // namespace

bool has_image_extension(const std::string& name) {
  const auto dot = name.rfind('.');
  if (dot == std::string::npos) return false;
  std::string extension = name.substr(dot + 1);
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return extension == "png" || extension == "jpg" || extension == "jpeg" || extension == "bmp";
}

Image decode_image(const std::string& bytes, const std::string& name, int64_t channels) {
  const auto starts_with = [&](const char* magic, size_t n) { return bytes.size() >= n && bytes.compare(0, n, magic, n) == 0; };
  Image image;
  if (starts_with("\x89PNG\r\n\x1a\n", 8)) image = decode_png(bytes, name);
  else if (starts_with("\xff\xd8\xff", 3)) image = decode_jpeg(bytes, name);
  else if (starts_with("BM", 2)) image = decode_bmp(bytes, name);
  else throw DataError(name + ": not a PNG, JPEG or BMP image" + (bytes.empty() ? " (the file is empty)" : ""));
  return with_channels(std::move(image), channels);
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

// As read_jpeg: no C++ object of its own between setjmp and longjmp. The
// encoded bytes are left in *buffer (malloc'd by libjpeg) even on failure.
bool write_jpeg(const Image& image, int quality, JpegErrors& errors, unsigned char** buffer, unsigned long* size) {
  jpeg_compress_struct info;
  info.err = jpeg_std_error(&errors.manager);
  errors.manager.error_exit = jpeg_fail;
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
