#pragma once
// The per-format decoders behind ImageRowReader (image_rows.h): each reads
// its header when made and then hands out rows top to bottom, in the file's
// own channels (1 grey, 3 RGB). Internal to data/.
#include <cstdint>
#include <memory>
#include <string>

namespace trainer {

// A bound on decoded pixels, far above any training image (a 16k x 16k
// photograph), so that a hostile header cannot ask for terabytes.
constexpr int64_t kMaxImagePixels = int64_t{1} << 28;

// Throws DataError naming `name` when `width` x `height` is empty or past
// kMaxImagePixels.
void check_image_size(int64_t width, int64_t height, const std::string& name);

class RowDecoder {
 public:
  virtual ~RowDecoder() = default;
  int64_t height() const { return height_; }
  int64_t width() const { return width_; }
  int64_t channels() const { return channels_; }
  // False when this file had to be decoded whole when it was opened.
  virtual bool streams() const = 0;
  // The next `count` rows into `out` (count x width x channels bytes).
  // Throws DataError when the file is damaged or cut short.
  virtual void read(int64_t count, uint8_t* out) = 0;

 protected:
  int64_t height_ = 0, width_ = 0, channels_ = 0;
};

// `bytes` must outlive the decoder. Each throws DataError naming `name`.
std::unique_ptr<RowDecoder> png_row_decoder(const std::string& bytes, const std::string& name);
std::unique_ptr<RowDecoder> jpeg_row_decoder(const std::string& bytes, const std::string& name);
std::unique_ptr<RowDecoder> bmp_row_decoder(const std::string& bytes, const std::string& name);

}  // namespace trainer
