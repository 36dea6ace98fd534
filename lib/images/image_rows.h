#pragma once
// An image file's rows, top to bottom, a band at a time: what tiled
// prediction reads so that a large image never needs all its pixels in
// memory. PNG (8 bits or fewer, not interlaced), JPEG and BMP are decoded
// as rows are asked for; an interlaced or 16-bit PNG is decoded whole when
// opened (its rows are not stored in order, or need converting first), and
// a progressive JPEG keeps its coefficients until its last row (libjpeg
// decodes it so). decode_image reads every row through this, so a band
// holds exactly the pixels the whole image has there.
#include <cstdint>
#include <memory>
#include <string>

#include "images/image_codec.h"

namespace trainer {

class RowDecoder;

class ImageRowReader {
 public:
  // Reads `bytes`' header (the format told by its first bytes, whatever the
  // name). `channels` as decode_image's. Throws DataError naming `name`:
  // not an image, damaged, or past the pixel limit (kMaxImagePixels: 2^28,
  // 16384 x 16384).
  ImageRowReader(std::string bytes, std::string name, int64_t channels = 0);
  ~ImageRowReader();
  ImageRowReader(const ImageRowReader&) = delete;
  ImageRowReader& operator=(const ImageRowReader&) = delete;

  int64_t height() const;
  int64_t width() const;
  int64_t channels() const;
  // Rows handed out so far.
  int64_t rows_read() const { return next_; }
  // Whether rows are decoded as they are asked for (false: decoded whole
  // when opened).
  bool streams() const;

  // The next `count` rows (fewer at the image's end, none past it), an
  // Image that many rows high. Throws DataError naming the file when it is
  // damaged or cut short there.
  Image next_rows(int64_t count);

 private:
  std::string bytes_;
  std::string name_;
  int64_t channels_ = 0;
  std::unique_ptr<RowDecoder> decoder_;
  int64_t next_ = 0;
};

}  // namespace trainer
