#include "data/keras_sequences.h"

#include <algorithm>
#include <random>

namespace trainer {

std::vector<int64_t> numpy_legacy_permutation(int64_t n, uint32_t seed) {
  std::vector<int64_t> values(n);
  for (int64_t i = 0; i < n; ++i) values[i] = i;
  std::mt19937 generator(seed);  // numpy's legacy int seeding is MT19937's init_genrand
  for (int64_t i = n - 1; i >= 1; --i) {
    uint64_t mask = static_cast<uint64_t>(i);
    for (int shift : {1, 2, 4, 8, 16, 32}) mask |= mask >> shift;
    uint64_t j;
    do {
      j = generator() & mask;
    } while (j > static_cast<uint64_t>(i));
    std::swap(values[i], values[j]);
  }
  return values;
}

std::vector<int64_t> keras_shift(const std::vector<int64_t>& ranks, int64_t start_char, int64_t index_from) {
  std::vector<int64_t> x;
  x.reserve(ranks.size() + 1);
  if (start_char >= 0) x.push_back(start_char);
  for (int64_t w : ranks) x.push_back(w + index_from);
  return x;
}

void keras_bound(std::vector<int64_t>& ids, int64_t skip_top, int64_t num_words, int64_t oov_char) {
  for (int64_t& w : ids)
    if (w < skip_top || w >= num_words) w = oov_char;
}

SequenceSplits keras_load_data(Sequences sequences, std::vector<int64_t> labels, const LoadDataOptions& options) {
  const auto order = numpy_legacy_permutation(static_cast<int64_t>(sequences.size()), options.seed);
  Sequences xs;
  std::vector<int64_t> ys;
  xs.reserve(order.size());
  for (int64_t index : order) {
    std::vector<int64_t> x = keras_shift(sequences[index], options.start_char, options.index_from);
    // Keras keeps only sequences strictly shorter than maxlen.
    if (options.maxlen > 0 && static_cast<int64_t>(x.size()) >= options.maxlen) continue;
    xs.push_back(std::move(x));
    ys.push_back(labels[index]);
  }

  int64_t num_words = options.num_words;
  if (num_words == 0)
    for (const auto& x : xs)
      for (int64_t w : x) num_words = std::max(num_words, w);
  for (auto& x : xs) keras_bound(x, options.skip_top, num_words, options.oov_char);

  SequenceSplits out;
  out.num_words = num_words;
  out.vocabulary = std::max({num_words, options.oov_char + 1, options.start_char + 1});
  const auto train_count = static_cast<size_t>(static_cast<double>(xs.size()) * (1.0 - options.test_split));
  out.train_x.assign(xs.begin(), xs.begin() + train_count);
  out.test_x.assign(xs.begin() + train_count, xs.end());
  out.train_y.assign(ys.begin(), ys.begin() + train_count);
  out.test_y.assign(ys.begin() + train_count, ys.end());
  return out;
}

std::vector<int64_t> pad_sequences(const Sequences& sequences, int64_t& length, SequenceEnd padding,
                                   SequenceEnd truncating) {
  if (length <= 0) {
    length = 0;
    for (const auto& s : sequences) length = std::max<int64_t>(length, s.size());
  }
  std::vector<int64_t> out(sequences.size() * length, 0);
  for (size_t row = 0; row < sequences.size(); ++row) {
    const auto& s = sequences[row];
    const int64_t kept = std::min<int64_t>(length, s.size());
    const auto first = truncating == SequenceEnd::kPre ? s.end() - kept : s.begin();
    int64_t* destination = out.data() + row * length + (padding == SequenceEnd::kPre ? length - kept : 0);
    std::copy(first, first + kept, destination);
  }
  return out;
}

}  // namespace trainer
