#pragma once
// How a run made its model's inputs from raw rows and text: what `trainer
// predict` needs to make new inputs the same way without the training data.
// data/ fills it as it loads a tabular or reuters set; the run directory
// keeps it (runs/input_encoding_file.h). Torch-free.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "spec/enums.h"

namespace trainer {

struct TabularEncoding {
  std::vector<std::string> columns;  // the feature columns in order (a CSV's header); empty from numpy arrays
  std::string target;                // the target column (CSV) or array (.npz); empty from a .npy pair
  // data.tabular.standardize: a feature x becomes (x - mean) / scale, in
  // float32 as training computed it; both empty when standardize is off.
  std::vector<double> mean, scale;
};

// Keras's reuters.load_data numbering (data/keras_sequences.h): a word of
// rank r (1 = most frequent) is the id r + index_from; the sequence starts
// with start_char; ids below skip_top or from num_words on become oov_char.
struct SequenceEncoding {
  // words[r - 1] has rank r: those whose id is below num_words (the others
  // read as oov_char anyway). Empty when the run was trained on word ids
  // (Keras's reuters.npz holds no words).
  std::vector<std::string> words;
  int64_t start_char = 1, oov_char = 2, index_from = 3, skip_top = 0;
  int64_t num_words = 0;  // the bound in force: data.num_words, or what load_data found with 0
  SequenceEnd padding = SequenceEnd::kPre, truncating = SequenceEnd::kPre;
};

struct InputEncoding {
  std::optional<TabularEncoding> tabular;
  std::optional<SequenceEncoding> sequences;
  bool empty() const { return !tabular && !sequences; }
};

}  // namespace trainer
