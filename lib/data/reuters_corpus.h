#pragma once
// Reads the Reuters-21578 SGML files and rebuilds the Keras "Reuters newswire
// topics" set from them, as Keras did: each
// newswire with topics under its first topic, topics with at least 15
// newswires, words numbered by frequency (most frequent = 1, ties in order of
// first occurrence).
#include <cstdint>
#include <string>
#include <vector>

namespace trainer {

struct Newswire {
  std::string topic;
  std::string body;  // empty when the record has no <BODY>
};

// Newswires with at least one topic in one .sgm file's text, in file order.
std::vector<Newswire> parse_reuters_sgml(const std::string& text);

// Keras Tokenizer defaults: lower-case, punctuation/tab/newline to spaces,
// split on spaces, no empty tokens.
std::vector<std::string> keras_tokenize(const std::string& text);

struct WordSequences {
  std::vector<std::vector<int64_t>> sequences;  // word ids, 1 = most frequent
  std::vector<int64_t> labels;                  // topic ids, in order of first appearance
  std::vector<std::string> topics;              // topic name of each label id
  std::vector<std::string> words;               // by rank: words[r - 1] has word id r
};

// Topic filter, tokenizer and word numbering over `wires`, in order.
WordSequences build_word_sequences(const std::vector<Newswire>& wires, int64_t min_wires_per_topic = 15);

// Every reut2-*.sgm file in `dir`, sorted by name. Throws DataError.
std::vector<Newswire> read_reuters_corpus(const std::string& dir);

}  // namespace trainer
