// Text numbered for predict the way training numbered the corpus: the same
// words, ranks, start, offset and bounds, so a newswire's text gives exactly
// the sequence its model was trained on.
#include <catch2/catch.hpp>

#include "data/keras_sequences.h"
#include "data/reuters_corpus.h"
#include "data/word_ids.h"

using namespace trainer;

namespace {

// Forty short newswires over two topics, words drawn from a small pool so
// that ranks tie and some words are rare.
std::vector<Newswire> wires() {
  const std::vector<std::string> pool{"oil", "Prices", "rose", "the", "bank", "said", "crude", "wheat",
                                      "exports", "fell", "shares", "of", "profit", "tonnes", "a", "in"};
  std::vector<Newswire> out;
  for (int i = 0; i < 40; ++i) {
    std::string body;
    for (int w = 0; w < 5 + i % 7; ++w) body += pool[(i * 7 + w * w * 3) % pool.size()] + (w % 3 ? " " : ", ");
    if (i == 17) body += "Zanzibar-cloves";  // two words seen once each
    out.push_back({i % 2 ? "crude" : "grain", body});
  }
  return out;
}

SequenceEncoding encoding_of(const WordSequences& corpus, const LoadDataOptions& options, int64_t num_words) {
  SequenceEncoding encoding;
  encoding.words = words_in_bound(corpus.words, options.index_from, num_words);
  encoding.start_char = options.start_char;
  encoding.oov_char = options.oov_char;
  encoding.index_from = options.index_from;
  encoding.skip_top = options.skip_top;
  encoding.num_words = num_words;
  return encoding;
}

}  // namespace

TEST_CASE("a newswire's text numbers as training numbered it", "[data][reuters][predict]") {
  const std::vector<Newswire> corpus_wires = wires();
  const WordSequences corpus = build_word_sequences(corpus_wires, /*min_wires_per_topic=*/1);
  LoadDataOptions options;
  options.test_split = 0;  // every wire in train_x, in the shuffle's order
  SECTION("every word (num_words 0)") {}
  SECTION("num_words and skip_top") {
    options.num_words = 12;
    options.skip_top = 5;
  }
  SECTION("no start_char, another offset") {
    options.start_char = -1;
    options.index_from = 1;
    options.oov_char = 0;
  }
  const SequenceSplits splits = keras_load_data(corpus.sequences, corpus.labels, options);
  const std::vector<int64_t> order = numpy_legacy_permutation(static_cast<int64_t>(corpus_wires.size()), options.seed);
  const WordIds words(encoding_of(corpus, options, splits.num_words));
  REQUIRE(splits.train_x.size() == corpus_wires.size());
  for (size_t i = 0; i < order.size(); ++i) {
    INFO("wire " << order[i]);
    const WordIds::Encoded encoded = words.encode(corpus_wires[static_cast<size_t>(order[i])].body);
    CHECK(encoded.ids == splits.train_x[i]);
  }
}

TEST_CASE("words the run never saw read as oov_char and are counted", "[data][reuters][predict]") {
  const WordSequences corpus = build_word_sequences(wires(), 1);
  LoadDataOptions options;
  const SequenceSplits splits = keras_load_data(corpus.sequences, corpus.labels, options);
  const WordIds words(encoding_of(corpus, options, splits.num_words));
  // "the" is in every wire's pool; "oil" too; "platinum" nowhere.
  const WordIds::Encoded encoded = words.encode("The platinum OIL; platinum");
  REQUIRE(encoded.ids.size() == 5);
  CHECK(encoded.ids[0] == options.start_char);
  CHECK(encoded.ids[2] == options.oov_char);
  CHECK(encoded.ids[4] == options.oov_char);
  CHECK(encoded.ids[1] != options.oov_char);
  CHECK(encoded.words == 4);
  CHECK(encoded.unknown == 2);
}

TEST_CASE("the vocabulary kept is the words below num_words", "[data][reuters][predict]") {
  const std::vector<std::string> words{"the", "of", "to", "in", "said"};
  CHECK(words_in_bound(words, 3, 7).size() == 3);   // ids 4, 5, 6
  CHECK(words_in_bound(words, 3, 100).size() == 5);
  CHECK(words_in_bound(words, 3, 2).empty());
}
