// PNG rows through libpng. An 8-bit (or fewer) PNG stored row after row is
// decoded a row at a time with libpng's row interface; an interlaced (Adam7)
// or 16-bit one, or one whose gamma is not sRGB's, is decoded whole with
// libpng's simplified interface, which converts it to 8-bit sRGB, and its
// rows are handed out from memory. Both give the colours as stored (alpha
// read and dropped, palettes looked up, grey of 1, 2 or 4 bits scaled to 8).
#include <png.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>

#include "images/image_row_decoders.h"
#include "images/png_errors.h"
#include "util/error.h"

namespace trainer {
namespace {

// libpng's state for one file, destroyed with its owner, also when the
// owner's constructor throws.
struct PngReadState : PngErrors {
  const std::string* bytes = nullptr;
  size_t at = 0;
  png_structp png = nullptr;
  png_infop info = nullptr;
  ~PngReadState() {
    if (png) png_destroy_read_struct(&png, info ? &info : nullptr, nullptr);
  }
};

void png_source(png_structp png, png_bytep out, size_t count) {
  auto* state = static_cast<PngReadState*>(png_get_io_ptr(png));
  if (state->bytes->size() - state->at < count) png_error(png, "the file is cut short");
  std::memcpy(out, state->bytes->data() + state->at, count);
  state->at += count;
}

// The functions that call libpng hold no C++ object of their own, as its
// errors longjmp back to them. Each returns false with the message set.
bool read_header(PngReadState& s) {
  if (setjmp(png_jmpbuf(s.png))) return false;
  png_set_read_fn(s.png, &s, png_source);
  png_read_info(s.png, s.info);
  return true;
}

bool set_transforms(PngReadState& s) {
  if (setjmp(png_jmpbuf(s.png))) return false;
  const png_byte colour = png_get_color_type(s.png, s.info);
  if (colour == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(s.png);
  if (colour == PNG_COLOR_TYPE_GRAY && png_get_bit_depth(s.png, s.info) < 8) png_set_expand_gray_1_2_4_to_8(s.png);
  png_set_strip_alpha(s.png);
  png_read_update_info(s.png, s.info);
  return true;
}

bool read_rows(PngReadState& s, png_bytep out, int64_t count, size_t row_bytes) {
  if (setjmp(png_jmpbuf(s.png))) return false;
  for (int64_t i = 0; i < count; ++i) png_read_row(s.png, out + static_cast<size_t>(i) * row_bytes, nullptr);
  return true;
}

bool read_end(PngReadState& s) {
  if (setjmp(png_jmpbuf(s.png))) return false;
  png_read_end(s.png, nullptr);
  return true;
}

// Whether libpng's simplified interface would change this file's values
// on the way to 8-bit sRGB (gamma correction): only a file with a gAMA
// chunk far from sRGB's 1/2.2 (libpng leaves anything within 5% as it is).
bool gamma_needs_correction(png_structp png, png_infop info) {
  png_fixed_point gamma = 0;
  if (png_get_valid(png, info, PNG_INFO_sRGB) || !png_get_gAMA_fixed(png, info, &gamma)) return false;
  return gamma < 44000 || gamma > 47000;
}

// The whole image through libpng's simplified interface: 8-bit, sRGB.
std::vector<uint8_t> decode_whole(const std::string& bytes, const std::string& name, int64_t& channels) {
  png_image png;
  std::memset(&png, 0, sizeof png);
  png.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_memory(&png, bytes.data(), bytes.size()))
    throw DataError(name + ": not a valid PNG (" + png.message + ")");
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
  channels = colour ? 3 : 1;
  if (!alpha) return read;
  const size_t stored = static_cast<size_t>(channels) + 1;
  const size_t pixels = read.size() / stored;
  std::vector<uint8_t> kept(pixels * static_cast<size_t>(channels));
  for (size_t i = 0; i < pixels; ++i)
    std::copy_n(read.begin() + static_cast<std::ptrdiff_t>(i * stored), channels,
                kept.begin() + static_cast<std::ptrdiff_t>(i * static_cast<size_t>(channels)));
  return kept;
}

class PngRows final : public RowDecoder {
 public:
  PngRows(const std::string& bytes, const std::string& name) : name_(name) {
    state_.bytes = &bytes;
    state_.png = png_create_read_struct(PNG_LIBPNG_VER_STRING, static_cast<PngErrors*>(&state_), png_fail, png_ignore);
    if (state_.png) state_.info = png_create_info_struct(state_.png);
    if (!state_.info) throw DataError(name + ": cannot decode the PNG (libpng is out of memory)");
    if (!read_header(state_)) throw DataError(name + ": not a valid PNG (" + state_.message + ")");
    width_ = png_get_image_width(state_.png, state_.info);
    height_ = png_get_image_height(state_.png, state_.info);
    check_image_size(width_, height_, name);
    // libpng stops once it has the pixels; a file cut in its last chunk
    // (IEND, whose CRC is always the same) is cut all the same. Checked
    // first, so that a file cut anywhere is refused before any row is used.
    if (bytes.find(std::string("\0\0\0\0IEND\xae\x42\x60\x82", 12)) == std::string::npos)
      throw DataError(name + ": the PNG is cut short (no IEND chunk at its end)");
    streams_ = png_get_bit_depth(state_.png, state_.info) <= 8 &&
               png_get_interlace_type(state_.png, state_.info) == PNG_INTERLACE_NONE &&
               !gamma_needs_correction(state_.png, state_.info);
    if (!streams_) {
      whole_ = decode_whole(bytes, name, channels_);
      return;
    }
    if (!set_transforms(state_)) throw DataError(name + ": not a valid PNG (" + state_.message + ")");
    channels_ = png_get_channels(state_.png, state_.info);
    if (png_get_rowbytes(state_.png, state_.info) != static_cast<size_t>(width_ * channels_))
      throw DataError(name + ": not a valid PNG (unexpected row layout)");
  }

  bool streams() const override { return streams_; }

  void read(int64_t count, uint8_t* out) override {
    count = std::min(count, height_ - next_);
    const size_t row_bytes = static_cast<size_t>(width_ * channels_);
    if (!streams_) {
      std::copy_n(whole_.begin() + static_cast<std::ptrdiff_t>(static_cast<size_t>(next_) * row_bytes),
                  static_cast<size_t>(count) * row_bytes, out);
    } else if (!read_rows(state_, out, count, row_bytes) || (next_ + count == height_ && !read_end(state_))) {
      throw DataError(name_ + ": the PNG is damaged or cut short (" + state_.message + ")");
    }
    next_ += count;
  }

 private:
  std::string name_;
  PngReadState state_;
  bool streams_ = false;
  std::vector<uint8_t> whole_;  // when the file cannot be read row by row
  int64_t next_ = 0;
};

}  // namespace

std::unique_ptr<RowDecoder> png_row_decoder(const std::string& bytes, const std::string& name) {
  return std::make_unique<PngRows>(bytes, name);
}

}  // namespace trainer
