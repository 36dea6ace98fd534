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

RawReuters read_reuters_npz(const std::string& path);

}  // namespace trainer
