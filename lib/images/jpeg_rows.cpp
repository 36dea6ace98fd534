// JPEG rows through libjpeg-turbo's scanline interface. A baseline JPEG is
// decoded a row at a time; a progressive one keeps its coefficients for the
// whole image (2 bytes a sample) until the last row is read, which is how
// libjpeg decodes it, bounded by the memory cap set below.
#include <cstring>

#include "images/image_row_decoders.h"
#include "images/jpeg_errors.h"
#include "util/error.h"

namespace trainer {
namespace {

// The decompressor, destroyed with its owner, also when the owner's
// constructor throws.
struct Decompressor {
  jpeg_decompress_struct info{};
  bool created = false;
  ~Decompressor() {
    if (created) jpeg_destroy_decompress(&info);
  }
};

class JpegRows final : public RowDecoder {
 public:
  JpegRows(const std::string& bytes, const std::string& name) : name_(name) {
    decompressor_.info.err = jpeg_errors(errors_);
    jpeg_create_decompress(&info_);
    decompressor_.created = true;
    if (!start(bytes)) fail();
    height_ = info_.output_height;
    width_ = info_.output_width;
    channels_ = info_.output_components;
  }
  bool streams() const override { return true; }

  void read(int64_t count, uint8_t* out) override {
    if (!rows(count, out)) fail();
    if (errors_.data_warning) throw DataError(name_ + ": the JPEG is damaged or cut short (" + errors_.message + ")");
  }

 private:
  // The header, the checks before libjpeg allocates, and the start of
  // decompression; no C++ object of its own, as libjpeg's errors longjmp
  // back here. False with errors_.message set on failure.
  bool start(const std::string& bytes) {
    if (setjmp(errors_.jump)) return false;
    jpeg_mem_src(&info_, reinterpret_cast<const unsigned char*>(bytes.data()), static_cast<unsigned long>(bytes.size()));
    jpeg_read_header(&info_, TRUE);
    // Checked before jpeg_start_decompress: a progressive JPEG's decoder
    // allocates coefficients for the whole declared image there, so a header
    // claiming 65535 x 65535 asked for gigabytes before the check below ran.
    // The memory cap bounds what a file within the pixel limit can take
    // (coefficients at 2 bytes each for up to 3 components, plus slack); a
    // header with more components than that fails with libjpeg's error.
    if (info_.image_height == 0 || info_.image_width > kMaxImagePixels / info_.image_height) {
      std::snprintf(errors_.message, sizeof errors_.message, "%u x %u pixels, more than trainer decodes (2^28)",
                    info_.image_width, info_.image_height);
      return false;
    }
    info_.mem->max_memory_to_use = static_cast<long>(int64_t{info_.image_width} * info_.image_height * 3 * 2 + (64 << 20));
    if (info_.jpeg_color_space == JCS_CMYK || info_.jpeg_color_space == JCS_YCCK) {
      std::snprintf(errors_.message, sizeof errors_.message, "CMYK JPEGs are not read; convert it to RGB");
      return false;
    }
    info_.out_color_space = info_.num_components == 1 ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_start_decompress(&info_);
    if (info_.output_height == 0 || info_.output_width > kMaxImagePixels / info_.output_height) {
      std::snprintf(errors_.message, sizeof errors_.message, "%u x %u pixels", info_.output_width, info_.output_height);
      return false;
    }
    return true;
  }

  // As start(). Finishes decompression after the last row, so that a file
  // cut after its pixels is still noticed.
  bool rows(int64_t count, uint8_t* out) {
    if (setjmp(errors_.jump)) return false;
    const size_t row_bytes = static_cast<size_t>(info_.output_width) * static_cast<size_t>(info_.output_components);
    for (int64_t i = 0; i < count && info_.output_scanline < info_.output_height; ++i) {
      JSAMPROW row = out + static_cast<size_t>(i) * row_bytes;
      jpeg_read_scanlines(&info_, &row, 1);
    }
    if (info_.output_scanline == info_.output_height && !finished_) {
      finished_ = true;
      jpeg_finish_decompress(&info_);
    }
    return true;
  }

  [[noreturn]] void fail() const { throw DataError(name_ + ": not a valid JPEG (" + errors_.message + ")"); }

  std::string name_;
  JpegErrors errors_;
  Decompressor decompressor_;
  jpeg_decompress_struct& info_ = decompressor_.info;
  bool finished_ = false;
};

}  // namespace

std::unique_ptr<RowDecoder> jpeg_row_decoder(const std::string& bytes, const std::string& name) {
  return std::make_unique<JpegRows>(bytes, name);
}

}  // namespace trainer
