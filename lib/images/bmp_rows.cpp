// Windows bitmaps: BITMAPCOREHEADER or BITMAPINFOHEADER and its successors;
// 1, 4, 8 bits through a palette, 16 and 32 bits through bit fields, 24
// bits BGR; bottom-up or top-down rows padded to 4 bytes. RLE is refused.
// The file's bytes are its pixels, so rows are read from them in place, in
// whichever order they are stored.
#include <algorithm>
#include <vector>

#include "images/image_row_decoders.h"
#include "util/error.h"

namespace trainer {
namespace {

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

class BmpRows final : public RowDecoder {
 public:
  BmpRows(const std::string& bytes, const std::string& name) : b_(bytes), name_(name) {
    if (b_.size() < 26) throw bad("the header is cut short");
    offset_ = le32(b_, 10);
    const uint32_t header = le32(b_, 14);
    const bool core = header == 12;
    if (!core && header < 40) throw bad("unknown header size " + std::to_string(header));
    if (b_.size() < 14 + static_cast<size_t>(header)) throw bad("the header is cut short");
    width_ = core ? le16(b_, 18) : static_cast<int32_t>(le32(b_, 18));
    const int64_t signed_height = core ? le16(b_, 20) : static_cast<int32_t>(le32(b_, 22));
    bits_ = core ? le16(b_, 24) : le16(b_, 28);
    const uint32_t compression = core ? 0 : le32(b_, 30);
    top_down_ = signed_height < 0;
    height_ = top_down_ ? -signed_height : signed_height;
    channels_ = 3;
    check_image_size(width_, height_, name_);
    if (compression != 0 && compression != 3)
      throw bad("compression " + std::to_string(compression) + " (RLE or embedded) is not read");
    if (bits_ != 1 && bits_ != 4 && bits_ != 8 && bits_ != 16 && bits_ != 24 && bits_ != 32)
      throw bad(std::to_string(bits_) + " bits per pixel");
    if (bits_ == 16) masks_[0] = 0x7c00u, masks_[1] = 0x03e0u, masks_[2] = 0x001fu;
    if (compression == 3) {
      // The masks follow a 40-byte header, or are part of a longer one.
      if (b_.size() < 14 + 40 + 12) throw bad("the bit-field masks are cut short");
      for (int i = 0; i < 3; ++i) masks_[i] = le32(b_, 54 + 4 * static_cast<size_t>(i));
    }
    if (bits_ <= 8) {
      const size_t entry = core ? 3 : 4;
      const uint32_t used = core ? 0 : le32(b_, 46);
      const size_t colours = used ? used : (size_t{1} << bits_);
      const size_t at = 14 + header;
      if (colours > 256 || at + colours * entry > b_.size()) throw bad("the palette is cut short");
      for (size_t i = 0; i < colours; ++i)
        palette_.insert(palette_.end(), {static_cast<uint8_t>(b_[at + i * entry + 2]),
                                         static_cast<uint8_t>(b_[at + i * entry + 1]), static_cast<uint8_t>(b_[at + i * entry])});
    }
    stride_ = ((static_cast<size_t>(width_) * static_cast<size_t>(bits_) + 31) / 32) * 4;
    if (offset_ > b_.size() || stride_ * static_cast<size_t>(height_) > b_.size() - offset_)
      throw bad("the pixel rows are cut short: " + std::to_string(b_.size()) + " bytes for " + std::to_string(width_) +
                " x " + std::to_string(height_) + " pixels of " + std::to_string(bits_) + " bits");
  }

  bool streams() const override { return true; }

  void read(int64_t count, uint8_t* out) override {
    for (int64_t i = 0; i < count && next_ < height_; ++i, ++next_) read_row(next_, out + i * width_ * 3);
  }

 private:
  DataError bad(const std::string& why) const { return DataError(name_ + ": not a valid BMP (" + why + ")"); }

  void read_row(int64_t row, uint8_t* out) const {
    const size_t start = offset_ + stride_ * static_cast<size_t>(top_down_ ? row : height_ - 1 - row);
    for (int64_t x = 0; x < width_; ++x, out += 3) {
      if (bits_ <= 8) {
        const size_t bit = static_cast<size_t>(x) * static_cast<size_t>(bits_);
        const auto byte = static_cast<uint8_t>(b_[start + bit / 8]);
        const size_t index = (byte >> (8 - bits_ - bit % 8)) & ((1u << bits_) - 1);
        if (3 * index + 2 >= palette_.size()) throw bad("a pixel names colour " + std::to_string(index) + " past the palette");
        std::copy_n(palette_.begin() + static_cast<std::ptrdiff_t>(3 * index), 3, out);
      } else if (bits_ == 24) {
        const size_t at = start + static_cast<size_t>(x) * 3;
        out[0] = static_cast<uint8_t>(b_[at + 2]), out[1] = static_cast<uint8_t>(b_[at + 1]), out[2] = static_cast<uint8_t>(b_[at]);
      } else {
        const size_t at = start + static_cast<size_t>(x) * static_cast<size_t>(bits_ / 8);
        const uint32_t pixel = bits_ == 16 ? le16(b_, at) : le32(b_, at);
        for (int c = 0; c < 3; ++c) out[c] = field(pixel, masks_[c]);
      }
    }
  }

  const std::string& b_;
  std::string name_;
  size_t offset_ = 0, stride_ = 0;
  int bits_ = 0;
  bool top_down_ = false;
  uint32_t masks_[3] = {0x00ff0000u, 0x0000ff00u, 0x000000ffu};
  std::vector<uint8_t> palette_;  // RGB triplets
  int64_t next_ = 0;
};

}  // namespace

std::unique_ptr<RowDecoder> bmp_row_decoder(const std::string& bytes, const std::string& name) {
  return std::make_unique<BmpRows>(bytes, name);
}

}  // namespace trainer
