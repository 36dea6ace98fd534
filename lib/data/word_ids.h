#pragma once
// Text as a run trained on the Reuters-21578 corpus numbers it: Keras's
// tokenizer, the run's vocabulary (its words by rank) and load_data's
// numbering (spec/input_encoding.h), the very functions training used.
// `trainer predict` reads text files with it. Torch-free.
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "spec/input_encoding.h"

namespace trainer {

class WordIds {
 public:
  explicit WordIds(SequenceEncoding encoding);

  struct Encoded {
    std::vector<int64_t> ids;  // start_char first; not padded
    int64_t words = 0;         // tokens in the text
    int64_t unknown = 0;       // of them, not in the vocabulary: read as oov_char
  };
  // A word the vocabulary lacks (never seen in training, or rarer than
  // num_words keeps) becomes oov_char, as a rare word did in training.
  Encoded encode(const std::string& text) const;

 private:
  SequenceEncoding encoding_;
  std::unordered_map<std::string, int64_t> rank_;
};

// What a run trained on the corpus keeps of its vocabulary: the words (by
// rank) whose id is below `num_words`, the bound load_data applied.
std::vector<std::string> words_in_bound(std::vector<std::string> words_by_rank, int64_t index_from, int64_t num_words);

}  // namespace trainer
