#include "images/image_rows.h"

#include <algorithm>

#include "images/image_row_decoders.h"
#include "util/error.h"

namespace trainer {
namespace {

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

std::unique_ptr<RowDecoder> open_decoder(const std::string& bytes, const std::string& name) {
  const auto starts_with = [&](const char* magic, size_t n) { return bytes.size() >= n && bytes.compare(0, n, magic, n) == 0; };
  if (starts_with("\x89PNG\r\n\x1a\n", 8)) return png_row_decoder(bytes, name);
  if (starts_with("\xff\xd8\xff", 3)) return jpeg_row_decoder(bytes, name);
  if (starts_with("BM", 2)) return bmp_row_decoder(bytes, name);
  throw DataError(name + ": not a PNG, JPEG or BMP image" + (bytes.empty() ? " (the file is empty)" : ""));
}

}  // namespace

void check_image_size(int64_t width, int64_t height, const std::string& name) {
  if (width <= 0 || height <= 0)
    throw DataError(name + ": the image has no pixels (" + std::to_string(width) + " x " + std::to_string(height) + ")");
  if (width > kMaxImagePixels / height)
    throw DataError(name + ": the image is " + std::to_string(width) + " x " + std::to_string(height) +
                    " pixels, more than trainer decodes (2^28); a corrupt header?");
}

ImageRowReader::ImageRowReader(std::string bytes, std::string name, int64_t channels)
    : bytes_(std::move(bytes)), name_(std::move(name)), channels_(channels), decoder_(open_decoder(bytes_, name_)) {}

ImageRowReader::~ImageRowReader() = default;

int64_t ImageRowReader::height() const { return decoder_->height(); }
int64_t ImageRowReader::width() const { return decoder_->width(); }
int64_t ImageRowReader::channels() const { return channels_ == 0 ? decoder_->channels() : channels_; }
bool ImageRowReader::streams() const { return decoder_->streams(); }

Image ImageRowReader::next_rows(int64_t count) {
  count = std::clamp<int64_t>(count, 0, height() - next_);
  Image rows{count, width(), decoder_->channels(), {}};
  rows.pixels.resize(static_cast<size_t>(count * rows.width * rows.channels));
  if (count > 0) decoder_->read(count, rows.pixels.data());
  next_ += count;
  return with_channels(std::move(rows), channels_);
}

}  // namespace trainer
