#pragma once
// Keras's `reuters.load_data` options and `pad_sequences`, on word sequences.
#include <cstdint>
#include <vector>

#include "spec/enums.h"

namespace trainer {

using Sequences = std::vector<std::vector<int64_t>>;

struct LoadDataOptions {
  int64_t num_words = 0;  // 0: all words
  int64_t skip_top = 0;
  int64_t maxlen = 0;  // 0: keep all
  double test_split = 0.2;
  uint32_t seed = 113;
  int64_t start_char = 1;
  int64_t oov_char = 2;
  int64_t index_from = 3;
};

struct SequenceSplits {
  Sequences train_x, test_x;
  std::vector<int64_t> train_y, test_y;
  int64_t vocabulary = 0;  // every index is below this
  int64_t num_words = 0;   // the bound applied: options.num_words, or the largest id found when that is 0
};

// What keras.datasets.reuters.load_data does after reading the file: shuffle
// (numpy's RandomState(seed)), start_char and index_from, maxlen filter,
// num_words/skip_top to oov_char, then the split.
SequenceSplits keras_load_data(Sequences sequences, std::vector<int64_t> labels, const LoadDataOptions& options);

// numpy.random.RandomState(seed).shuffle(arange(n)), bit for bit: MT19937 and
// the masked-rejection interval sampling of numpy's legacy generator.
std::vector<int64_t> numpy_legacy_permutation(int64_t n, uint32_t seed);

// One sequence of word ranks (1 = most frequent) as load_data numbers it,
// before the vocabulary bounds: start_char first (when not negative), then
// each rank + index_from.
std::vector<int64_t> keras_shift(const std::vector<int64_t>& ranks, int64_t start_char, int64_t index_from);

// load_data's vocabulary bounds, in place: ids below skip_top or from
// num_words on become oov_char.
void keras_bound(std::vector<int64_t>& ids, int64_t skip_top, int64_t num_words, int64_t oov_char);

// keras pad_sequences: `length` 0 means the longest; padding with 0.
// Returns row-major [sequences.size() x length].
std::vector<int64_t> pad_sequences(const Sequences& sequences, int64_t& length, SequenceEnd padding,
                                   SequenceEnd truncating);

}  // namespace trainer
