#include "runs/input_encoding_file.h"

#include <nlohmann/json.hpp>

#include "util/atomic_file.h"
#include "util/error.h"
#include "util/json.h"
#include "util/read_file.h"

namespace trainer {
namespace {

using Json = nlohmann::ordered_json;

// Bumped when a key changes meaning; a newer file is refused, not misread.
constexpr int kFormat = 1;

// What a vocabulary file may hold: Reuters-21578 has 30,979 words, and a
// vocabulary of millions of words is still far below this.
constexpr uint64_t kVocabularyCap = uint64_t{256} << 20;

Json floats(const std::vector<double>& values) {
  Json out = Json::array();
  // float32 values, written with the digits that give them back exactly.
  for (double v : values) out.push_back(json_number(static_cast<float>(v)));
  return out;
}

// Reads `json` with messages naming the file and the key.
class Reader {
 public:
  Reader(const Json& json, std::string file) : json_(json), file_(std::move(file)) {}

  const Json& at(const Json& object, const std::string& key, Json::value_t type, const std::string& where) const {
    if (!object.is_object() || !object.contains(key)) fail(where + key + ": missing");
    const Json& value = object.at(key);
    const bool ok = type == Json::value_t::number_integer
                        ? value.is_number_integer()
                        : type == Json::value_t::number_float ? value.is_number() : value.type() == type;
    if (!ok) fail(where + key + ": expected " + expected(type) + ", found " + value.type_name());
    return value;
  }
  int64_t integer(const Json& object, const std::string& key, const std::string& where = {}) const {
    return at(object, key, Json::value_t::number_integer, where).get<int64_t>();
  }
  std::string text(const Json& object, const std::string& key, const std::string& where = {}) const {
    return at(object, key, Json::value_t::string, where).get<std::string>();
  }
  template <typename T>
  std::vector<T> list(const Json& object, const std::string& key, Json::value_t item, const std::string& where = {}) const {
    std::vector<T> out;
    for (const Json& value : at(object, key, Json::value_t::array, where)) {
      const bool ok = item == Json::value_t::string ? value.is_string()
                      : item == Json::value_t::number_integer ? value.is_number_integer()
                                                              : value.is_number();
      if (!ok) fail(where + key + ": expected a list of " + expected(item) + "s, found a " + value.type_name());
      out.push_back(value.get<T>());
    }
    return out;
  }
  [[noreturn]] void fail(const std::string& what) const {
    throw DataError(file_ + ": " + what, "the run's inputs.json is written by trainer run; run it again, or remove the "
                                         "file to have predict read the training data instead");
  }

 private:
  static std::string expected(Json::value_t type) {
    switch (type) {
      case Json::value_t::number_integer: return "an integer";
      case Json::value_t::number_float: return "a number";
      case Json::value_t::string: return "a string";
      case Json::value_t::array: return "a list";
      case Json::value_t::boolean: return "true or false";
      default: return "an object";
    }
  }
  const Json& json_;
  std::string file_;
};

SequenceEnd sequence_end(const Reader& read, const Json& object, const std::string& key) {
  const std::string text = read.text(object, key, "sequences.");
  if (text == "pre") return SequenceEnd::kPre;
  if (text == "post") return SequenceEnd::kPost;
  read.fail("sequences." + key + ": expected pre or post, found '" + text + "'");
}

std::vector<std::string> read_vocabulary(const std::string& path, int64_t expected) {
  const FileRead file = read_regular_file(path, kVocabularyCap, "vocabulary");
  if (!file.ok())
    throw DataError(path + " " + file.problem, "a run trained on text keeps its words there; predict cannot "
                                               "number words without them");
  std::vector<std::string> words;
  for (size_t at = 0; at < file.bytes.size();) {
    const size_t end = std::min(file.bytes.find('\n', at), file.bytes.size());
    words.push_back(file.bytes.substr(at, end - at));
    at = end + 1;
  }
  if (static_cast<int64_t>(words.size()) != expected)
    throw DataError(path + ": " + std::to_string(words.size()) + " words; its inputs.json says " +
                    std::to_string(expected), "the files of a run belong together; run it again");
  return words;
}

}  // namespace

std::string input_encoding_path(const std::string& run_dir) { return run_dir + "/inputs.json"; }
std::string vocabulary_path(const std::string& run_dir) { return run_dir + "/vocabulary.txt"; }

void write_recorded_inputs(const std::string& run_dir, const DataInfo& info, const InputEncoding& encoding) {
  if (encoding.empty()) return;
  Json json;
  json["format"] = kFormat;
  json["dataset"] = info.name;
  json["input_shape"] = info.input_shape;
  json["token_inputs"] = info.token_inputs;
  json["vocabulary"] = info.vocabulary;
  json["classes"] = info.classes;
  json["class_names"] = info.class_names;
  json["target_shape"] = info.target_shape;
  if (const auto& tabular = encoding.tabular) {
    Json& t = json["tabular"];
    t["columns"] = tabular->columns;
    t["target"] = tabular->target;
    t["mean"] = floats(tabular->mean);
    t["scale"] = floats(tabular->scale);
  }
  if (const auto& sequences = encoding.sequences) {
    Json& s = json["sequences"];
    s["start_char"] = sequences->start_char;
    s["oov_char"] = sequences->oov_char;
    s["index_from"] = sequences->index_from;
    s["skip_top"] = sequences->skip_top;
    s["num_words"] = sequences->num_words;
    s["padding"] = sequences->padding == SequenceEnd::kPre ? "pre" : "post";
    s["truncating"] = sequences->truncating == SequenceEnd::kPre ? "pre" : "post";
    s["words"] = sequences->words.size();
    if (!sequences->words.empty()) {
      std::string lines;
      for (const std::string& word : sequences->words) lines += word + "\n";  // line r: the word of rank r
      write_file_atomic(vocabulary_path(run_dir), lines);
    }
  }
  write_file_atomic(input_encoding_path(run_dir), json.dump(2) + "\n");
}

std::optional<RecordedInputs> read_recorded_inputs(const std::string& run_dir) {
  const std::string path = input_encoding_path(run_dir);
  const FileRead file = read_regular_file(path, kConfigFileCap, "inputs record");
  if (file.missing) return std::nullopt;
  if (!file.ok()) throw DataError(path + " " + file.problem);
  const Json json = Json::parse(file.bytes, nullptr, /*allow_exceptions=*/false);
  const Reader read(json, path);
  if (json.is_discarded() || !json.is_object()) read.fail("not a JSON object");
  if (const int64_t format = read.integer(json, "format"); format != kFormat)
    read.fail("format " + std::to_string(format) + ", which this trainer does not read (it reads " +
              std::to_string(kFormat) + "): a newer trainer wrote it");
  RecordedInputs out;
  DataInfo& info = out.info;
  info.name = read.text(json, "dataset");
  info.input_shape = read.list<int64_t>(json, "input_shape", Json::value_t::number_integer);
  info.token_inputs = read.at(json, "token_inputs", Json::value_t::boolean, "").get<bool>();
  info.vocabulary = read.integer(json, "vocabulary");
  info.classes = read.integer(json, "classes");
  info.class_names = read.list<std::string>(json, "class_names", Json::value_t::string);
  info.target_shape = read.list<int64_t>(json, "target_shape", Json::value_t::number_integer);
  // Bounds no data set reaches, so that a damaged file cannot ask for a model of absurd size.
  constexpr int64_t kLargest = int64_t{1} << 31;
  for (int64_t d : info.input_shape)
    if (d <= 0 || d >= kLargest) read.fail("input_shape: sizes must be positive and below 2^31");
  if (info.vocabulary < 0 || info.vocabulary >= kLargest) read.fail("vocabulary: expected 0 to 2^31 - 1");
  if (info.classes < 0 || info.classes >= kLargest) read.fail("classes: expected 0 to 2^31 - 1");
  for (int64_t d : info.target_shape)
    if (d <= 0 || d >= kLargest) read.fail("target_shape: sizes must be positive and below 2^31");
  if (json.contains("tabular")) {
    const Json& t = read.at(json, "tabular", Json::value_t::object, "");
    TabularEncoding tabular;
    tabular.columns = read.list<std::string>(t, "columns", Json::value_t::string, "tabular.");
    tabular.target = read.text(t, "target", "tabular.");
    tabular.mean = read.list<double>(t, "mean", Json::value_t::number_float, "tabular.");
    tabular.scale = read.list<double>(t, "scale", Json::value_t::number_float, "tabular.");
    const size_t width = info.input_shape.empty() ? 0 : static_cast<size_t>(info.input_shape[0]);
    if (info.input_shape.size() != 1) read.fail("input_shape: a table's rows have one dimension");
    if (!tabular.columns.empty() && tabular.columns.size() != width)
      read.fail("tabular.columns: " + std::to_string(tabular.columns.size()) + " names for " + std::to_string(width) +
                " features");
    if (tabular.mean.size() != tabular.scale.size() || (!tabular.mean.empty() && tabular.mean.size() != width))
      read.fail("tabular.mean and tabular.scale: one value per feature (" + std::to_string(width) + "), or none");
    out.encoding.tabular = std::move(tabular);
  }
  if (json.contains("sequences")) {
    const Json& s = read.at(json, "sequences", Json::value_t::object, "");
    SequenceEncoding sequences;
    sequences.start_char = read.integer(s, "start_char", "sequences.");
    sequences.oov_char = read.integer(s, "oov_char", "sequences.");
    sequences.index_from = read.integer(s, "index_from", "sequences.");
    sequences.skip_top = read.integer(s, "skip_top", "sequences.");
    sequences.num_words = read.integer(s, "num_words", "sequences.");
    sequences.padding = sequence_end(read, s, "padding");
    sequences.truncating = sequence_end(read, s, "truncating");
    const int64_t words = read.integer(s, "words", "sequences.");
    if (info.input_shape.size() != 1 || !info.token_inputs)
      read.fail("input_shape and token_inputs: a sequence model reads one dimension of token ids");
    if (words < 0) read.fail("sequences.words: a count cannot be negative");
    if (words > 0) sequences.words = read_vocabulary(vocabulary_path(run_dir), words);
    out.encoding.sequences = std::move(sequences);
  }
  return out;
}

}  // namespace trainer
