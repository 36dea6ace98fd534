#include "infer/sequence_inputs.h"

#include <cmath>
#include <filesystem>
#include <optional>
#include <set>

#include "data/keras_sequences.h"
#include "data/word_ids.h"
#include "formats/file_bytes.h"
#include "formats/npy_format.h"
#include "util/error.h"
#include "util/logging.h"
#include "util/read_file.h"
#include "util/text.h"

namespace trainer {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

// The most one text or JSON-lines file may hold: a newswire is a few KiB,
// and a file beyond this is not a document.
constexpr uint64_t kTextFileCap = uint64_t{256} << 20;

// "an object", "a number", for messages.
std::string a_kind(const Json& value) {
  const std::string kind = value.type_name();
  return (kind[0] == 'a' || kind[0] == 'o' ? "an " : "a ") + kind;
}

// Collects the sequences and their places, and counts the words.
class Collector {
 public:
  Collector(const DataConfig& data, const DataInfo& info, const SequenceEncoding& encoding)
      : data_(data), info_(info), encoding_(encoding) {}

  void add_text(const std::string& text, Json place, const std::string& where) {
    // A binary file read as words still gets a confident class: refuse it.
    if (const size_t nul = text.find('\0'); nul != std::string::npos)
      throw DataError(where + ": not text: byte " + std::to_string(nul + 1) +
                          " is a NUL, as in a binary file (an image, an archive, a checkpoint)",
                      "give a text file, a folder of .txt files, a .jsonl or a .npy file of token ids");
    if (!words_) {
      if (encoding_.words.empty())
        throw DataError(where + ": text, but this run was trained on word ids (Keras's reuters.npz holds no words), "
                                "so it has no vocabulary to number words with",
                        "give token ids: a .jsonl file of lists of ids, or a .npy of them");
      words_.emplace(encoding_);
    }
    WordIds::Encoded encoded = words_->encode(text);
    // Only padding would be classified: the class would say nothing about it.
    if (encoded.words == 0) throw DataError(where + ": holds no words, so there is nothing to classify");
    words_seen_ += encoded.words;
    unknown_ += encoded.unknown;
    add(std::move(encoded.ids), std::move(place));
  }

  // Ids as the model sees them: each must index its embedding.
  void add_ids(std::vector<int64_t> ids, Json place, const std::string& where) {
    if (ids.empty()) throw DataError(where + ": an empty list of token ids, so there is nothing to classify");
    for (size_t i = 0; i < ids.size(); ++i)
      if (ids[i] < 0 || ids[i] >= info_.vocabulary)
        throw DataError(where + ": token " + std::to_string(i + 1) + " is " + std::to_string(ids[i]) +
                            ", outside the model's vocabulary (ids 0 to " + std::to_string(info_.vocabulary - 1) + ")",
                        "give ids as the model was trained on them (start_char, index_from and oov_char applied, as "
                        "Keras's load_data returns them), or give the text");
    add(std::move(ids), std::move(place));
  }

  // Leaves out what cannot be read under data.on_bad_file: skip.
  void skip_or_throw(const DataError& e) {
    if (data_.on_bad_file == BadFilePolicy::kError) throw e;
    log().warn("skipping {}", e.what());
    ++rows_.skipped;
  }

  RowInputs finish(const std::string& input) {
    int64_t length = info_.input_shape.at(0);
    const std::vector<int64_t> padded = pad_sequences(sequences_, length, encoding_.padding, encoding_.truncating);
    rows_.inputs = torch::tensor(padded, torch::kInt64).reshape({static_cast<int64_t>(sequences_.size()), length});
    if (words_ && words_seen_ > 0) {
      const std::string counts =
          fmt::format("{}: {} words, {} ({:.1f}%) not in the run's vocabulary (read as oov_char {})", printable(input),
                      words_seen_, unknown_, 100.0 * unknown_ / words_seen_, encoding_.oov_char);
      // Classes of texts the model mostly cannot read are guesses: say so.
      if (unknown_ * 2 > words_seen_)
        log().warn("{}; the predictions read mostly unknown words: is the text in the language and domain the run "
                   "was trained on?",
                   counts);
      else
        log().info("{}", counts);
    }
    return std::move(rows_);
  }

 private:
  void add(std::vector<int64_t> ids, Json place) {
    sequences_.push_back(std::move(ids));
    rows_.places.push_back(std::move(place));
  }

  const DataConfig& data_;
  const DataInfo& info_;
  const SequenceEncoding& encoding_;
  std::optional<WordIds> words_;  // made at the first text
  Sequences sequences_;
  RowInputs rows_;
  int64_t words_seen_ = 0, unknown_ = 0;
};

std::string read_text(const std::string& path) {
  FileRead file = read_regular_file(path, kTextFileCap, "text file");
  if (!file.ok()) throw DataError(printable(path) + " " + file.problem);
  return std::move(file.bytes);
}

// The .txt files below `root`, sorted by path.
std::vector<std::string> text_files_below(const std::string& root) {
  std::error_code error;
  std::set<std::string> found;
  int64_t unreadable = 0;
  for (fs::recursive_directory_iterator it(root, error), end; !error && it != end; it.increment(error)) {
    if (it->path().extension() != ".txt") continue;
    std::error_code kind;
    if (it->is_regular_file(kind)) found.insert(it->path().string());
    else if (!it->is_directory(kind)) ++unreadable;
  }
  if (error) throw DataError(printable(root) + ": cannot list it (" + error.message() + ")");
  if (unreadable > 0)
    log().warn("{}: left out {} entr{} named .txt that {} not regular files", printable(root), unreadable,
               unreadable == 1 ? "y" : "ies", unreadable == 1 ? "is" : "are");
  if (found.empty()) throw DataError(printable(root) + ": no .txt files in it or its subfolders",
                                     "a folder holds one document per .txt file");
  return {found.begin(), found.end()};
}

void read_json_lines(const std::string& path, Collector& out) {
  const std::string text = read_text(path);
  int64_t line = 0;
  for (size_t at = 0; at < text.size();) {
    const size_t end = std::min(text.find('\n', at), text.size());
    const std::string content = text.substr(at, end - at);
    at = end + 1;
    ++line;
    if (content.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::string where = printable(path) + ":" + std::to_string(line);
    try {
      const Json value = Json::parse(content, nullptr, /*allow_exceptions=*/false);
      if (value.is_string()) {
        out.add_text(value.get<std::string>(), {{"line", line}}, where);
        continue;
      }
      if (!value.is_array())
        throw DataError(where + ": expected a list of token ids or a string of text, found " +
                        (value.is_discarded() ? std::string("text that is not JSON") : a_kind(value)));
      std::vector<int64_t> ids;
      for (const Json& id : value) {
        if (!id.is_number_integer())
          throw DataError(where + ": token " + std::to_string(ids.size() + 1) + " is " +
                          excerpt(id.dump()) + ", not an integer id");
        ids.push_back(id.get<int64_t>());
      }
      out.add_ids(std::move(ids), {{"line", line}}, where);
    } catch (const DataError& e) {
      out.skip_or_throw(e);
    }
  }
}

void read_npy_ids(const std::string& path, Collector& out) {
  const NpyArray array = parse_npy(read_file_bytes(path), path);
  if (array.shape.empty() || array.shape.size() > 2)
    throw DataError(printable(path) + ": a " + std::to_string(array.shape.size()) +
                    "-D array; expected token ids, a row a sequence (2-D) or one sequence (1-D)");
  const std::vector<double> values = npy_to_double(array, path);
  const int64_t rows = array.shape.size() == 1 ? 1 : array.shape[0];
  const int64_t width = array.shape.back();
  for (int64_t r = 0; r < rows; ++r) {
    const std::string where = printable(path) + ": row " + std::to_string(r);
    std::vector<int64_t> ids;
    for (int64_t c = 0; c < width; ++c) {
      const double v = values[static_cast<size_t>(r * width + c)];
      if (v != std::floor(v) || std::fabs(v) > 9e15)
        throw DataError(where + ": token " + std::to_string(c + 1) + " is " + std::to_string(v) + ", not an integer id");
      ids.push_back(static_cast<int64_t>(v));
    }
    out.add_ids(std::move(ids), {{"row", r}}, where);
  }
}

}  // namespace

RowInputs read_sequence_inputs(const std::string& input, const DataConfig& data, const DataInfo& info,
                               const SequenceEncoding& encoding) {
  Collector out(data, info, encoding);
  std::error_code error;
  if (fs::is_directory(input, error)) {
    for (const std::string& path : text_files_below(input)) {
      try {
        out.add_text(read_text(path), {{"file", path}}, printable(path));
      } catch (const DataError& e) {
        out.skip_or_throw(e);
      }
    }
    return out.finish(input);
  }
  if (const std::string problem = regular_file_problem(input); !problem.empty())
    throw DataError(printable(input) + " " + problem,
                    "--input names a text file, a folder of .txt files, a .jsonl or a .npy file of token ids");
  if (ends_with(input, ".jsonl"))
    read_json_lines(input, out);
  else if (ends_with(input, ".npy"))
    read_npy_ids(input, out);
  else
    out.add_text(read_text(input), {{"file", input}}, printable(input));
  return out.finish(input);
}

}  // namespace trainer
