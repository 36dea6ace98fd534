#include <catch2/catch.hpp>

#include "data/keras_sequences.h"
#include "test_paths.h"
#include "util/error.h"

using namespace trainer;

TEST_CASE("numpy's legacy shuffle is reproduced bit for bit", "[data][keras]") {
  // np.random.RandomState(113).shuffle(np.arange(10)), printed by numpy 1.24.
  CHECK(numpy_legacy_permutation(10, 113) == std::vector<int64_t>{9, 3, 6, 1, 0, 7, 4, 8, 2, 5});
  const auto big = numpy_legacy_permutation(11228, 113);
  CHECK(std::vector<int64_t>(big.begin(), big.begin() + 5) == std::vector<int64_t>{1341, 4427, 5095, 2044, 3024});
  CHECK(std::vector<int64_t>(big.end() - 3, big.end()) == std::vector<int64_t>{11010, 6306, 4828});
}

TEST_CASE("pad_sequences follows Keras: pre/post padding and truncation", "[data][keras]") {
  const Sequences seqs{{1, 2, 3, 4}, {5}};
  int64_t length = 3;
  CHECK(pad_sequences(seqs, length, SequenceEnd::kPre, SequenceEnd::kPre) == std::vector<int64_t>{2, 3, 4, 0, 0, 5});
  CHECK(pad_sequences(seqs, length, SequenceEnd::kPost, SequenceEnd::kPost) == std::vector<int64_t>{1, 2, 3, 5, 0, 0});
  CHECK(pad_sequences(seqs, length, SequenceEnd::kPre, SequenceEnd::kPost) == std::vector<int64_t>{1, 2, 3, 0, 0, 5});
  int64_t longest = 0;
  CHECK(pad_sequences(seqs, longest, SequenceEnd::kPre, SequenceEnd::kPre) == std::vector<int64_t>{1, 2, 3, 4, 0, 0, 0, 5});
  CHECK(longest == 4);
}

TEST_CASE("keras_load_data: start_char, index_from, num_words, skip_top, maxlen, split", "[data][keras]") {
  const Sequences words{{1, 2, 3}, {4, 5}, {1, 1}, {6}, {2, 7, 1, 1}};
  const std::vector<int64_t> labels{0, 1, 0, 1, 2};
  LoadDataOptions options;
  options.test_split = 0.4;
  const auto out = keras_load_data(words, labels, options);
  REQUIRE(out.train_x.size() == 3);  // int(5 * 0.6)
  REQUIRE(out.test_x.size() == 2);
  // Every sequence starts with start_char; words are shifted by index_from.
  for (const auto& x : out.train_x) CHECK(x.front() == 1);
  // num_words defaults to the largest index, which Keras then maps to oov.
  for (const auto* xs : {&out.train_x, &out.test_x})
    for (const auto& x : *xs)
      for (int64_t w : x) CHECK(w < 10);
  CHECK(out.vocabulary == 10);

  options.num_words = 6;
  options.skip_top = 4;
  options.maxlen = 4;  // keeps sequences strictly shorter (start_char counts)
  const auto cut = keras_load_data(words, labels, options);
  CHECK(cut.train_x.size() + cut.test_x.size() == 3);
  for (const auto* xs : {&cut.train_x, &cut.test_x})
    for (const auto& x : *xs)
      for (int64_t w : x) CHECK((w == 2 || (w >= 4 && w < 6)));
}
