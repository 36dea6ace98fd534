#pragma once
// Keras's reuters.npz: `x`, a pickled object array of word-id lists, and
// `y`, the topic labels; before load_data's shuffle and shifts.
#include <string>

#include "data/keras_sequences.h"

namespace trainer {

struct RawReuters {
  Sequences sequences;
  std::vector<int64_t> labels;
};

// The arrays as stored (any int64 values). Throws DataError.
RawReuters read_reuters_npz(const std::string& path);

// Throws DataError, naming `path` and the index, on a label outside
// [0, 2^16) or a word id outside [0, 2^31): values that only a corrupt file
// holds, and that would make the output or embedding layer too large to
// allocate.
void check_reuters_ranges(const RawReuters& raw, const std::string& path);

}  // namespace trainer
