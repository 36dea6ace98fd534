#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "data/data_root.h"
#include "data/dataset_loaders.h"
#include "data/keras_sequences.h"
#include "data/download.h"
#include "data/reuters_corpus.h"
#include "data/reuters_npz.h"
#include "data/word_ids.h"
#include "util/error.h"
#include "util/logging.h"
#include "util/text.h"

namespace trainer {
namespace {

namespace fs = std::filesystem;

// The topics of Keras's "Reuters newswire topics" set, which the corpus
// gives too (data/reuters_corpus.h).
constexpr int64_t kKerasReutersTopics = 46;

std::string expand_home(const std::string& path) {
  if (path.rfind("~/", 0) != 0) return path;
  const char* home = std::getenv("HOME");
  return home ? std::string(home) + path.substr(1) : path;
}

// data.path when given; else the lab's data folder (TRAINER_DATA_DIR), then
// what Keras users already have, then a download into Keras's cache.
std::string locate_reuters(const DataConfig& config) {
  if (!config.path.empty()) {
    if (fs::exists(config.path)) return config.path;
    throw DataError("data.path " + config.path + " does not exist",
                    "point it at reuters.npz or at the folder of the Reuters-21578 reut2-*.sgm files");
  }
  std::vector<std::string> places;
  for (const char* name : {"reuters.npz", "reuters21578"})
    if (const std::string place = in_data_root(name); !place.empty()) places.push_back(place);
  const std::string cached = expand_home(config.cache_dir) + "/reuters.npz";
  places.push_back(cached);
  for (const auto& place : places)
    if (fs::exists(place)) return place;
  if (!config.download)
    throw DataError("the Reuters data set was not found at " + join(places, ", ") + ", and data.download is off",
                    "put Keras's reuters.npz at " + cached + ", set data.path, or set " + kDataRootVariable +
                        " to a folder holding reuters.npz or reuters21578/");
  download_verified({config.url, config.sha256, cached});
  return cached;
}

torch::Tensor to_tensor(const std::vector<int64_t>& values, std::vector<int64_t> shape) {
  return torch::tensor(values, torch::kInt64).reshape(shape);
}

TensorDataset to_split(const Sequences& xs, const std::vector<int64_t>& ys, int64_t& length, const DataConfig& config) {
  TensorDataset split;
  const auto padded = pad_sequences(xs, length, config.padding, config.truncating);
  split.inputs = to_tensor(padded, {static_cast<int64_t>(xs.size()), length});
  split.labels = to_tensor(ys, {static_cast<int64_t>(ys.size())});
  return split;
}

}  // namespace

std::optional<DataInfo> preview_reuters(const DataConfig& config) {
  if (config.sequence_length == 0) return std::nullopt;  // the longest newswire decides
  DataInfo info;
  info.name = "reuters";
  info.input_shape = {config.sequence_length};
  info.token_inputs = true;
  // Keras's set has 46 topics; with num_words = 0 the vocabulary is the
  // largest word id, known once read: any size stands in for it, as it sizes
  // an embedding's table, never a shape.
  info.classes = kKerasReutersTopics;
  constexpr int64_t kVocabularyStandIn = 10000;
  info.vocabulary = std::max({config.num_words > 0 ? config.num_words : kVocabularyStandIn, config.oov_char + 1,
                              config.start_char + 1});
  info.vocabulary_stand_in = config.num_words == 0;
  return info;
}

DataSplits load_reuters(const DataConfig& config) {
  const std::string place = locate_reuters(config);
  Sequences sequences;
  std::vector<int64_t> labels;
  int64_t classes = 0;
  std::vector<std::string> topics, words;  // the corpus names them; Keras's npz holds numbers only
  if (fs::is_directory(place)) {
    log().info("reading the Reuters-21578 corpus from {}", place);
    WordSequences corpus = build_word_sequences(read_reuters_corpus(place));
    if (corpus.sequences.empty()) throw DataError(place + ": no newswires with topics found");
    sequences = std::move(corpus.sequences);
    labels = std::move(corpus.labels);
    topics = std::move(corpus.topics);
    words = std::move(corpus.words);
    classes = static_cast<int64_t>(topics.size());
  } else {
    log().info("reading {}", place);
    RawReuters raw = read_reuters_npz(place);
    check_reuters_ranges(raw, place);
    sequences = std::move(raw.sequences);
    labels = std::move(raw.labels);
    for (int64_t label : labels) classes = std::max(classes, label + 1);
  }

  LoadDataOptions options;
  options.num_words = config.num_words;
  options.skip_top = config.skip_top;
  options.maxlen = config.maxlen;
  options.test_split = config.test_split;
  options.seed = static_cast<uint32_t>(config.split_seed);
  options.start_char = config.start_char;
  options.oov_char = config.oov_char;
  options.index_from = config.index_from;
  const SequenceSplits split = keras_load_data(std::move(sequences), std::move(labels), options);

  // Both splits are padded to one length, the longest of either when
  // sequence_length is 0.
  int64_t length = config.sequence_length;
  if (length == 0) {
    for (const auto* xs : {&split.train_x, &split.test_x})
      for (const auto& x : *xs) length = std::max<int64_t>(length, x.size());
  }
  DataSplits splits;
  splits.train = to_split(split.train_x, split.train_y, length, config);
  splits.valid = to_split(split.test_x, split.test_y, length, config);
  splits.info.name = "reuters";
  splits.info.input_shape = {length};
  splits.info.token_inputs = true;
  splits.info.vocabulary = split.vocabulary;
  splits.info.classes = classes;
  splits.info.class_names = std::move(topics);
  SequenceEncoding encoding;
  encoding.words = words_in_bound(std::move(words), config.index_from, split.num_words);
  encoding.start_char = config.start_char;
  encoding.oov_char = config.oov_char;
  encoding.index_from = config.index_from;
  encoding.skip_top = config.skip_top;
  encoding.num_words = split.num_words;
  encoding.padding = config.padding;
  encoding.truncating = config.truncating;
  splits.encoding.sequences = std::move(encoding);
  return splits;
}

}  // namespace trainer
