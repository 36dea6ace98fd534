#include <catch2/catch.hpp>

#include <set>

#include "data/keras_sequences.h"
#include "data/reuters_corpus.h"
#include "test_paths.h"
#include "util/error.h"

using namespace trainer;

TEST_CASE("Keras tokenizer defaults", "[data][reuters]") {
  CHECK(keras_tokenize("Showers continued, in the\nBahia-cocoa zone. It's 5.93 mln") ==
        std::vector<std::string>{"showers", "continued", "in", "the", "bahia", "cocoa", "zone", "it's", "5", "93", "mln"});
  CHECK(keras_tokenize("  &lt;A&gt;  ").size() == 3);
}

TEST_CASE("SGML records: first topic, body up to the next tag, empty body when none", "[data][reuters]") {
  const std::string text = R"(<REUTERS NEWID="1"><TOPICS><D>cocoa</D></TOPICS><TEXT><BODY>Cocoa rose.
Reuter</BODY></TEXT></REUTERS>
<REUTERS NEWID="2"><TOPICS></TOPICS><TEXT><BODY>no topic</BODY></TEXT></REUTERS>
<REUTERS NEWID="3"><TOPICS><D>grain</D><D>wheat</D></TOPICS><TEXT type="BRIEF"><TITLE>x</TITLE></TEXT></REUTERS>
<REUTERS NEWID="4"><TOPICS><D>cocoa</D></TOPICS><TEXT><BODY>Cocoa fell &lt;up&gt;</BODY></TEXT></REUTERS>)";
  const auto wires = parse_reuters_sgml(text);
  REQUIRE(wires.size() == 3);
  CHECK(wires[0].topic == "cocoa");
  CHECK(wires[0].body == "Cocoa rose.\nReuter");
  CHECK(wires[1].topic == "grain");
  CHECK(wires[1].body.empty());
  CHECK(wires[2].body == "Cocoa fell &lt;up&gt;");

  const auto words = build_word_sequences(wires, /*min_wires_per_topic=*/1);
  CHECK(words.topics == std::vector<std::string>{"cocoa", "grain"});
  CHECK(words.labels == std::vector<int64_t>{0, 1, 0});
  // "cocoa" occurs twice: index 1; ties keep first-occurrence order.
  CHECK(words.sequences[0] == std::vector<int64_t>{1, 2, 3});
  CHECK(words.sequences[2] == std::vector<int64_t>{1, 4, 5, 6, 7});  // cocoa fell lt up gt
}

TEST_CASE("the Reuters-21578 corpus rebuilds Keras's set", "[data][reuters][corpus]") {
  if (!testing::have_reuters_corpus()) {
    WARN(testing::kNeedsReutersCorpus);
    return;
  }
  const auto wires = read_reuters_corpus(testing::reuters_corpus_dir());
  const auto words = build_word_sequences(wires);
  CHECK(words.sequences.size() == 11228);
  CHECK(words.topics.size() == 46);
  CHECK(words.labels.size() == 11228);
  CHECK(std::set<int64_t>(words.labels.begin(), words.labels.end()).size() == 46);
  CHECK(words.topics[0] == "cocoa");  // the first newswire's topic is label 0

  const auto splits = keras_load_data(words.sequences, words.labels, LoadDataOptions{});
  CHECK(splits.train_x.size() == 8982);
  CHECK(splits.test_x.size() == 2246);
  // Keras's index_from=3 numbering: about 30,000 words (Keras: ~30,980).
  CHECK(splits.vocabulary > 25000);
  CHECK(splits.vocabulary < 35000);
}

TEST_CASE("a folder without the corpus is a data error naming it", "[data][reuters]") {
  const std::string dir = testing::fresh_dir("no-corpus");
  CHECK_THROWS_WITH(read_reuters_corpus(dir), Catch::Contains(dir) && Catch::Contains("reut2-"));
}
