#include "data/reuters_corpus.h"

#include <algorithm>
#include <filesystem>
#include <numeric>
#include <unordered_map>

#include "formats/file_bytes.h"
#include "util/error.h"

namespace trainer {
namespace {

// The text between `open` and the next `close` within [from, to), or npos.
size_t find_within(const std::string& text, const std::string& what, size_t from, size_t to) {
  const size_t at = text.find(what, from);
  return at < to ? at : std::string::npos;
}

}  // namespace

std::vector<Newswire> parse_reuters_sgml(const std::string& text) {
  std::vector<Newswire> wires;
  size_t cursor = 0;
  while (true) {
    const size_t start = text.find("<REUTERS", cursor);
    if (start == std::string::npos) break;
    size_t end = text.find("</REUTERS>", start);
    if (end == std::string::npos) end = text.size();
    cursor = end;

    const size_t topics_open = find_within(text, "<TOPICS>", start, end);
    if (topics_open == std::string::npos) continue;
    const size_t topics_close = find_within(text, "</TOPICS>", topics_open, end);
    if (topics_close == std::string::npos) continue;
    std::vector<std::string> topics;
    for (size_t d = find_within(text, "<D>", topics_open, topics_close); d != std::string::npos;
         d = find_within(text, "<D>", d + 3, topics_close)) {
      const size_t d_end = find_within(text, "</D>", d, topics_close);
      if (d_end == std::string::npos) break;
      topics.push_back(text.substr(d + 3, d_end - d - 3));
    }
    // Keras's builder cut the <TOPICS> text at the first "</", so a record
    // with several topics counts under its first one. That is what yields
    // Keras's 46 topics and 11,228 newswires (keeping only single-topic
    // records gives 36 and 9,326).
    if (topics.empty()) continue;

    Newswire wire;
    wire.topic = topics[0];
    const size_t body = find_within(text, "<BODY>", topics_close, end);
    if (body != std::string::npos) {
      const size_t body_start = body + 6;
      const size_t body_end = text.find("</", body_start);
      wire.body = text.substr(body_start, std::min(body_end, end) - body_start);
    }
    wires.push_back(std::move(wire));
  }
  return wires;
}

std::vector<std::string> keras_tokenize(const std::string& text) {
  static const std::string kFilters = "!\"#$%&()*+,-./:;<=>?@[\\]^_`{|}~\t\n";
  std::vector<std::string> tokens;
  std::string current;
  for (char c : text) {
    if (c == ' ' || kFilters.find(c) != std::string::npos) {
      if (!current.empty()) tokens.push_back(std::move(current));
      current.clear();
    } else {
      current.push_back((c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c);
    }
  }
  if (!current.empty()) tokens.push_back(std::move(current));
  return tokens;
}

WordSequences build_word_sequences(const std::vector<Newswire>& wires, int64_t min_wires_per_topic) {
  std::unordered_map<std::string, int64_t> topic_counts;
  for (const auto& wire : wires) ++topic_counts[wire.topic];

  WordSequences out;
  std::unordered_map<std::string, int64_t> topic_ids;
  std::vector<std::vector<std::string>> documents;
  for (const auto& wire : wires) {
    if (topic_counts[wire.topic] < min_wires_per_topic) continue;
    auto [it, inserted] = topic_ids.emplace(wire.topic, static_cast<int64_t>(out.topics.size()));
    if (inserted) out.topics.push_back(wire.topic);
    out.labels.push_back(it->second);
    documents.push_back(keras_tokenize(wire.body));
  }

  // Word counts in order of first occurrence, then a stable sort by count:
  // ties keep that order, as Keras's Tokenizer does.
  std::unordered_map<std::string, int64_t> first_seen;
  std::vector<std::string> words;
  std::vector<int64_t> counts;
  for (const auto& document : documents) {
    for (const auto& word : document) {
      auto [it, inserted] = first_seen.emplace(word, static_cast<int64_t>(words.size()));
      if (inserted) {
        words.push_back(word);
        counts.push_back(0);
      }
      ++counts[it->second];
    }
  }
  std::vector<int64_t> order(words.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return counts[a] > counts[b]; });
  std::vector<int64_t> word_id(words.size());
  for (size_t rank = 0; rank < order.size(); ++rank) word_id[order[rank]] = static_cast<int64_t>(rank) + 1;

  out.words.reserve(order.size());
  for (int64_t index : order) out.words.push_back(words[index]);
  out.sequences.reserve(documents.size());
  for (const auto& document : documents) {
    std::vector<int64_t> sequence;
    sequence.reserve(document.size());
    for (const auto& word : document) sequence.push_back(word_id[first_seen[word]]);
    out.sequences.push_back(std::move(sequence));
  }
  return out;
}

std::vector<Newswire> read_reuters_corpus(const std::string& dir) {
  std::vector<std::string> files;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(dir, error)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("reut2-", 0) == 0 && entry.path().extension() == ".sgm") files.push_back(entry.path().string());
  }
  if (error) throw DataError("cannot list " + dir + ": " + error.message());
  if (files.empty()) throw DataError(dir + " holds no reut2-*.sgm files of the Reuters-21578 corpus");
  std::sort(files.begin(), files.end());
  std::vector<Newswire> wires;
  for (const auto& file : files) {
    auto part = parse_reuters_sgml(read_file_bytes(file));
    wires.insert(wires.end(), std::make_move_iterator(part.begin()), std::make_move_iterator(part.end()));
  }
  return wires;
}

}  // namespace trainer
