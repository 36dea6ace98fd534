#include "data/word_ids.h"

#include <algorithm>

#include "data/keras_sequences.h"
#include "data/reuters_corpus.h"

namespace trainer {

WordIds::WordIds(SequenceEncoding encoding) : encoding_(std::move(encoding)) {
  rank_.reserve(encoding_.words.size());
  for (size_t i = 0; i < encoding_.words.size(); ++i) rank_.emplace(encoding_.words[i], static_cast<int64_t>(i) + 1);
}

WordIds::Encoded WordIds::encode(const std::string& text) const {
  const std::vector<std::string> tokens = keras_tokenize(text);
  Encoded out;
  out.words = static_cast<int64_t>(tokens.size());
  // A rank no kept word has: past num_words, so keras_bound makes it oov_char.
  const int64_t beyond = std::max<int64_t>(encoding_.num_words - encoding_.index_from, 0) + 1;
  std::vector<int64_t> ranks;
  ranks.reserve(tokens.size());
  for (const std::string& token : tokens) {
    const auto found = rank_.find(token);
    if (found == rank_.end()) ++out.unknown;
    ranks.push_back(found == rank_.end() ? beyond : found->second);
  }
  out.ids = keras_shift(ranks, encoding_.start_char, encoding_.index_from);
  keras_bound(out.ids, encoding_.skip_top, encoding_.num_words, encoding_.oov_char);
  return out;
}

std::vector<std::string> words_in_bound(std::vector<std::string> words_by_rank, int64_t index_from, int64_t num_words) {
  // Rank r has the id r + index_from, kept while below num_words.
  const int64_t kept = std::max<int64_t>(num_words - index_from - 1, 0);
  if (static_cast<int64_t>(words_by_rank.size()) > kept) words_by_rank.resize(static_cast<size_t>(kept));
  return words_by_rank;
}

}  // namespace trainer
