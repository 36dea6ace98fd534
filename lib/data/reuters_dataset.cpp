#include <cstdlib>
#include <filesystem>

#include "data/dataset_loaders.h"
#include "data/keras_sequences.h"
#include "data/reuters_corpus.h"
#include "util/error.h"
#include "util/logging.h"

namespace trainer {
namespace {

namespace fs = std::filesystem;

// Where to look when data.path is empty: what Keras users already have, then
// the corpus beside the project.
std::vector<std::string> default_reuters_locations() {
  std::vector<std::string> places;
  if (const char* home = std::getenv("HOME")) places.push_back(std::string(home) + "/.keras/datasets/reuters.npz");
  places.push_back("../shared/data/reuters21578");
  return places;
}

std::string locate_reuters(const DataConfig& config) {
  const auto places = config.path.empty() ? std::vector<std::string>{default_reuters_locations()}
                                          : std::vector<std::string>{config.path};
  for (const auto& place : places)
    if (fs::exists(place)) return place;
  std::string looked;
  for (const auto& place : places) looked += "\n  " + place;
  throw DataError("the Reuters data set was not found; looked at:" + looked,
                  "put Keras's reuters.npz in ~/.keras/datasets/, or set data.path to it or to the folder of the "
                  "Reuters-21578 reut2-*.sgm files");
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

DataSplits load_reuters(const DataConfig& config) {
  const std::string place = locate_reuters(config);
  if (!fs::is_directory(place))
    throw DataError(place + ": reading Keras's reuters.npz is not supported yet",
                    "set data.path to the folder of the Reuters-21578 reut2-*.sgm files");

  log().info("reading the Reuters-21578 corpus from {}", place);
  const WordSequences words = build_word_sequences(read_reuters_corpus(place));
  if (words.sequences.empty()) throw DataError(place + ": no single-topic newswires found");

  LoadDataOptions options;
  options.num_words = config.num_words;
  options.skip_top = config.skip_top;
  options.maxlen = config.maxlen;
  options.test_split = config.test_split;
  options.seed = static_cast<uint32_t>(config.split_seed);
  options.start_char = config.start_char;
  options.oov_char = config.oov_char;
  options.index_from = config.index_from;
  const SequenceSplits sequences = keras_load_data(words.sequences, words.labels, options);

  // Both splits are padded to one length, the longest of either when
  // sequence_length is 0.
  int64_t length = config.sequence_length;
  if (length == 0) {
    for (const auto* xs : {&sequences.train_x, &sequences.test_x})
      for (const auto& x : *xs) length = std::max<int64_t>(length, x.size());
  }
  DataSplits splits;
  splits.train = to_split(sequences.train_x, sequences.train_y, length, config);
  splits.valid = to_split(sequences.test_x, sequences.test_y, length, config);
  splits.info.name = "reuters";
  splits.info.input_shape = {length};
  splits.info.token_inputs = true;
  splits.info.vocabulary = sequences.vocabulary;
  splits.info.classes = static_cast<int64_t>(words.topics.size());
  return splits;
}

}  // namespace trainer
