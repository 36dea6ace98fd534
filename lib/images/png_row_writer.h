#pragma once
// A PNG written to a file a band of rows at a time, so that an output as
// large as its input never has to be held whole: trainer predict's tiled
// image outputs. Torch-free.
#include <cstdint>
#include <memory>
#include <string>

#include "images/image_codec.h"

namespace trainer {

class PngRowWriter {
 public:
  // Creates `path` (normally the temporary of write_atomic_with, which
  // renames it once finished) for an image of this size; `name` (the file
  // the user named) in messages. Throws IoError.
  PngRowWriter(const std::string& path, const std::string& name, int64_t width, int64_t height, int64_t channels);
  ~PngRowWriter();
  PngRowWriter(const PngRowWriter&) = delete;
  PngRowWriter& operator=(const PngRowWriter&) = delete;

  // The next rows, top to bottom: `rows` has the image's width and channels.
  void write(const Image& rows);
  // After the last row: ends the file and closes it. Throws IoError naming
  // the path when anything could not be written (a full disk).
  void finish();

  struct State;

 private:
  std::unique_ptr<State> state_;
};

}  // namespace trainer
