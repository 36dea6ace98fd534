// `trainer predict` for models that read rows and texts, end to end: a
// table's rows and a newswire's words are encoded as training encoded them
// (so predictions on the validation rows score exactly what validation
// scored), from the run's own record, with no training data at hand.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "json_lines.h"
#include "formats/npy_format.h"

using namespace trainer::testing;
namespace fs = std::filesystem;
using Json = nlohmann::json;

namespace {

Json last_epoch(const std::string& run) { return metrics_of(run).back(); }

// Features a, b, c in quarters (exact in float32 and in decimal), c on
// another scale; the class is which third of a + b the row is in, named.
struct Row {
  double a, b, c;
  std::string label;
};
std::vector<Row> rows(int count, int seed) {
  std::vector<Row> out;
  for (int i = 0; i < count; ++i) {
    const double a = ((i * 37 + seed * 11) % 41) * 0.25, b = ((i * 17 + seed * 5) % 29) * 0.25;
    const double c = 100 + ((i * 13) % 23) * 4.0;
    const double s = a + b;
    out.push_back({a, b, c, s < 6 ? "low" : s < 10 ? "mid" : "high"});
  }
  return out;
}

void write_csv(const std::string& path, const std::vector<Row>& table) {
  std::ofstream out(path);
  out << "a,b,label,c\n";
  for (const Row& r : table) out << r.a << "," << r.b << "," << r.label << "," << r.c << "\n";
}

// The same rows as a user's file for predict: an id column first, the
// columns in another order.
void write_shuffled_csv(const std::string& path, const std::vector<Row>& table) {
  std::ofstream out(path);
  out << "id,c,label,b,a\n";
  for (size_t i = 0; i < table.size(); ++i)
    out << "r" << i << "," << table[i].c << "," << table[i].label << "," << table[i].b << "," << table[i].a << "\n";
}

std::string classifier(const std::string& dir) {
  write_csv(dir + "/train.csv", rows(240, 1));
  write_csv(dir + "/valid.csv", rows(60, 2));
  const std::string path = dir + "/rows.yaml";
  std::ofstream(path) << "experiment: {name: rows, seed: 4}\n"
                      << "data: {dataset: tabular, path: " << dir << "/train.csv, validation_path: " << dir
                      << "/valid.csv,\n       tabular: {target: label, standardize: true}}\n"
                      << "model: {layers: [{type: dense, units: 16, activation: relu}, {type: dense, units: 3, "
                         "activation: softmax}]}\n"
                      << "optimizer: {name: adam, lr: 0.02}\n"
                      << "train: {epochs: 2, batch_size: 16}\n"
                      << "log: {dir: " << dir << "/runs, run_name: run}\n";
  return path;
}

// The mean cross-entropy of the true classes, as val_loss is.
double cross_entropy(const std::vector<Json>& predictions, const std::vector<Row>& table) {
  double sum = 0;
  for (size_t i = 0; i < table.size(); ++i)
    for (const Json& entry : predictions[i]["top"])
      if (entry["class"] == table[i].label) sum -= std::log(entry["probability"].get<double>());
  return sum / static_cast<double>(table.size());
}

double accuracy(const std::vector<Json>& predictions, const std::vector<Row>& table) {
  REQUIRE(predictions.size() == table.size());
  int correct = 0;
  for (size_t i = 0; i < table.size(); ++i) correct += predictions[i]["top"][0]["class"] == table[i].label;
  return static_cast<double>(correct) / static_cast<double>(table.size());
}

// Two topics with words of their own and words in common, 20 newswires each,
// as Reuters-21578's SGML holds them.
void write_corpus(const std::string& dir) {
  fs::create_directories(dir);
  std::ofstream out(dir + "/reut2-000.sgm");
  const std::vector<std::string> grain{"wheat", "tonnes", "harvest", "maize", "export"};
  const std::vector<std::string> crude{"oil", "barrels", "opec", "refinery", "price"};
  const std::vector<std::string> common{"the", "said", "of", "a", "in"};
  for (int i = 0; i < 40; ++i) {
    const auto& own = i % 2 ? crude : grain;
    std::string body;
    for (int w = 0; w < 12; ++w) body += (w % 2 ? own[(i + w) % 5] : common[(i * 3 + w) % 5]) + " ";
    out << "<REUTERS NEWID=\"" << i + 1 << "\"><TOPICS><D>" << (i % 2 ? "crude" : "grain")
        << "</D></TOPICS><TEXT><BODY>" << body << "Reuter</BODY></TEXT></REUTERS>\n";
  }
}

}  // namespace

TEST_CASE("predict: a table's rows, found by column name, score what validation scored", "[e2e][predict][tabular]") {
  const std::string dir = fresh_dir("e2e-predict-rows");
  const auto trained = run_trainer({"run", classifier(dir)}, dir);
  INFO(trained.err);
  REQUIRE(trained.exit_code == 0);
  const std::string run = dir + "/runs/rows/run";
  REQUIRE(fs::exists(run + "/inputs.json"));
  const std::vector<Row> valid = rows(60, 2);
  write_shuffled_csv(dir + "/new.csv", valid);
  const std::string checkpoint = run + "/checkpoints/epoch-0002.pt";

  const auto predicted = run_trainer({"predict", "--checkpoint", checkpoint, "--input", dir + "/new.csv"}, dir);
  INFO(predicted.err);
  REQUIRE(predicted.exit_code == 0);
  const std::vector<Json> lines = parse_json_lines(predicted.out);
  CHECK(lines.at(0)["line"] == 2);
  CHECK(lines.at(0)["top"].size() == 3);
  CHECK_THAT(predicted.err, Catch::Contains("not features of the model, ignored: id"));
  // The standardisation and the class names are the training run's: the
  // validation rows, predicted, are exactly as accurate as validation found.
  CHECK(accuracy(lines, valid) == Approx(last_epoch(run)["val_accuracy"].get<double>()).epsilon(1e-6));
  CHECK(cross_entropy(lines, valid) == Approx(last_epoch(run)["val_loss"].get<double>()).epsilon(1e-5));

  SECTION("with the training data gone: the run's inputs.json is enough") {
    fs::rename(dir + "/train.csv", dir + "/train.moved");
    fs::rename(dir + "/valid.csv", dir + "/valid.moved");
    const auto again = run_trainer({"predict", "--checkpoint", checkpoint, "--input", dir + "/new.csv"}, dir);
    CHECK(again.exit_code == 0);
    CHECK(again.out == predicted.out);

    fs::remove(run + "/inputs.json");
    const auto blind = run_trainer({"predict", "--checkpoint", checkpoint, "--input", dir + "/new.csv"}, dir);
    CHECK(blind.exit_code == 3);
    CHECK_THAT(blind.err, Catch::Contains("no inputs.json") && Catch::Contains("train.csv"));
  }
  SECTION("a run without inputs.json (an older trainer's) reads its training data again, with a warning") {
    fs::remove(run + "/inputs.json");
    const auto again = run_trainer({"predict", "--checkpoint", checkpoint, "--input", dir + "/new.csv"}, dir);
    CHECK(again.exit_code == 0);
    CHECK(again.out == predicted.out);
    CHECK_THAT(again.err, Catch::Contains("no inputs.json") && Catch::Contains("warning"));
  }
  SECTION("a numpy array of the rows, in the training column order, predicts the same") {
    std::string floats;
    for (const Row& r : valid)
      for (double v : {r.a, r.b, r.c}) {
        const float f = static_cast<float>(v);
        floats.append(reinterpret_cast<const char*>(&f), sizeof f);
      }
    std::ofstream(dir + "/new.npy", std::ios::binary)
        << trainer::npy_bytes("<f4", {static_cast<int64_t>(valid.size()), 3}, floats);
    const auto from_numpy = run_trainer({"predict", "--checkpoint", checkpoint, "--input", dir + "/new.npy"}, dir);
    INFO(from_numpy.err);
    REQUIRE(from_numpy.exit_code == 0);
    const std::vector<Json> numpy_lines = parse_json_lines(from_numpy.out);
    REQUIRE(numpy_lines.size() == lines.size());
    CHECK(numpy_lines[5]["row"] == 5);
    for (size_t i = 0; i < lines.size(); ++i) CHECK(numpy_lines[i]["top"] == lines[i]["top"]);

    std::ofstream(dir + "/wide.npy", std::ios::binary) << trainer::npy_bytes("<f4", {1, 4}, std::string(16, '\0'));
    const auto wide = run_trainer({"predict", "--checkpoint", checkpoint, "--input", dir + "/wide.npy"}, dir);
    CHECK(wide.exit_code == 3);
    CHECK_THAT(wide.err, Catch::Contains("wide.npy: an array of shape (1, 4); the model reads rows of 3 features"));
  }
  SECTION("what it cannot read: a missing column, a field that is not a number") {
    std::ofstream(dir + "/short.csv") << "a,b\n1,2\n";
    const auto missing = run_trainer({"predict", "--checkpoint", checkpoint, "--input", dir + "/short.csv"}, dir);
    CHECK(missing.exit_code == 3);
    CHECK_THAT(missing.err, Catch::Contains("short.csv: no column 'c'; its columns: a, b"));

    std::ofstream(dir + "/bad.csv") << "a,b,c\n1,2,3\n4,x,6\n7,8,9\n";
    const auto bad = run_trainer({"predict", "--checkpoint", checkpoint, "--input", dir + "/bad.csv"}, dir);
    CHECK(bad.exit_code == 3);
    CHECK_THAT(bad.err, Catch::Contains("bad.csv:3: column 2 ('b') holds 'x', not a number"));
    const auto skipped = run_trainer({"predict", "--checkpoint", checkpoint, "--input", dir + "/bad.csv", "--set",
                                      "data.on_bad_file=skip", "--output", dir + "/out"},
                                     dir);
    CHECK(skipped.exit_code == 0);
    CHECK_THAT(skipped.err, Catch::Contains("predicted 2 rows") && Catch::Contains("1 skipped"));
    const std::vector<Json> kept = parse_json_lines(read_text(dir + "/out/predictions.jsonl"));
    REQUIRE(kept.size() == 2);
    std::ofstream(dir + "/all-bad.csv") << "a,b,c\n4,x,6\n";
    const auto none = run_trainer({"predict", "--checkpoint", checkpoint, "--input", dir + "/all-bad.csv", "--set",
                                   "data.on_bad_file=skip", "--output", dir + "/none"},
                                  dir);
    CHECK(none.exit_code == 3);
    CHECK_THAT(none.err, Catch::Contains("all-bad.csv: nothing to predict: its one row was left out"));
    CHECK_FALSE(fs::exists(dir + "/none/predictions.jsonl"));
    CHECK(kept[1]["line"] == 4);
    // An output that exists is not replaced unless asked.
    const auto twice = run_trainer({"predict", "--checkpoint", checkpoint, "--input", dir + "/bad.csv", "--set",
                                    "data.on_bad_file=skip", "--output", dir + "/out"},
                                   dir);
    CHECK(twice.exit_code == 2);
  }
}

TEST_CASE("predict: a regression's values, as validation computed them", "[e2e][predict][tabular]") {
  const std::string dir = fresh_dir("e2e-predict-regression");
  std::ofstream train(dir + "/train.csv"), valid(dir + "/valid.csv");
  train << "x1,x2,y\n";
  valid << "x1,x2,y\n";
  for (int i = 0; i < 200; ++i) {
    const double x1 = std::sin(0.3 * i), x2 = std::cos(0.17 * i);
    (i % 4 ? train : valid) << x1 << "," << x2 << "," << 3 * x1 - x2 << "\n";
  }
  train.close();
  valid.close();
  std::ofstream(dir + "/reg.yaml") << "experiment: {name: reg, seed: 1}\n"
                                   << "data: {dataset: tabular, path: " << dir << "/train.csv, validation_path: " << dir
                                   << "/valid.csv, tabular: {task: regression, standardize: true}}\n"
                                   << "model: {layers: [{type: dense, units: 8, activation: tanh}, {type: dense, units: 1}]}\n"
                                   << "optimizer: {name: adam, lr: 0.01}\n"
                                   << "train: {epochs: 2, batch_size: 10}\n"
                                   << "log: {dir: " << dir << "/runs, run_name: run}\n";
  const auto trained = run_trainer({"run", dir + "/reg.yaml"}, dir);
  INFO(trained.err);
  REQUIRE(trained.exit_code == 0);
  const std::string run = dir + "/runs/reg/run";
  const auto predicted = run_trainer({"predict", "--checkpoint", run + "/checkpoints/epoch-0002.pt", "--input",
                                      dir + "/valid.csv"},
                                     dir);
  INFO(predicted.err);
  REQUIRE(predicted.exit_code == 0);
  const std::vector<Json> lines = parse_json_lines(predicted.out);
  REQUIRE(lines.size() == 50);
  double squared = 0;
  std::ifstream table(dir + "/valid.csv");
  std::string header, row;
  std::getline(table, header);
  for (const Json& line : lines) {
    REQUIRE(std::getline(table, row));
    const double y = std::stod(row.substr(row.rfind(',') + 1));
    REQUIRE(line["prediction"].size() == 1);
    squared += std::pow(line["prediction"][0].get<double>() - y, 2);
  }
  CHECK(squared / 50 == Approx(last_epoch(run)["val_loss"].get<double>()).epsilon(1e-4));
}

TEST_CASE("predict: texts numbered with the run's vocabulary, or token ids", "[e2e][predict][reuters]") {
  const std::string dir = fresh_dir("e2e-predict-texts");
  write_corpus(dir + "/corpus");
  std::ofstream(dir + "/news.yaml")
      << "experiment: {name: news, seed: 3}\n"
      << "data: {dataset: reuters, path: " << dir << "/corpus, sequence_length: 16, test_split: 0.25}\n"
      << "model: {layers: [{type: embedding, input_dim: vocabulary, output_dim: 8}, {type: global_avgpool},\n"
      << "                 {type: dense, units: classes, activation: softmax}]}\n"
      << "optimizer: {name: adam, lr: 0.05}\n"
      << "train: {epochs: 3, batch_size: 8}\n"
      << "log: {dir: " << dir << "/runs, run_name: run}\n";
  const auto trained = run_trainer({"run", dir + "/news.yaml"}, dir);
  INFO(trained.err);
  REQUIRE(trained.exit_code == 0);
  const std::string run = dir + "/runs/news/run";
  // Ranked by frequency: the common words first.
  const std::string vocabulary = read_text(run + "/vocabulary.txt");
  std::vector<std::string> words;
  std::istringstream in(vocabulary);
  for (std::string word; std::getline(in, word);) words.push_back(word);
  REQUIRE(words.size() > 5);
  CHECK((words[0] == "the" || words[0] == "said" || words[0] == "of" || words[0] == "a" || words[0] == "in"));

  fs::create_directories(dir + "/texts/more");
  std::ofstream(dir + "/texts/wheat.txt") << "The wheat harvest: maize and wheat tonnes for export.";
  std::ofstream(dir + "/texts/more/oil.txt") << "OPEC said oil barrels price at the refinery";
  std::ofstream(dir + "/texts/notes.md") << "not a .txt file: left out";
  const auto texts = run_trainer({"predict", "--checkpoint", run, "--input", dir + "/texts", "--top-k", "1"}, dir);
  INFO(texts.err);
  REQUIRE(texts.exit_code == 0);
  const std::vector<Json> lines = parse_json_lines(texts.out);
  REQUIRE(lines.size() == 2);
  CHECK(lines[0]["file"] == dir + "/texts/more/oil.txt");
  CHECK(lines[0]["top"][0]["class"] == "crude");
  CHECK(lines[1]["top"][0]["class"] == "grain");
  CHECK_THAT(texts.err, Catch::Contains("2 sequences"));

  SECTION("the ids the documented rule gives predict as the text does") {
    // start_char 1, then each word's rank (its line in vocabulary.txt) + index_from 3.
    std::string ids = "[1";
    for (const std::string word : {"opec", "said", "oil", "barrels", "price", "at", "the", "refinery"}) {
      const auto found = std::find(words.begin(), words.end(), word);
      ids += ", " + std::to_string(found == words.end() ? 2 : (found - words.begin()) + 1 + 3);
    }
    std::ofstream(dir + "/ids.jsonl") << ids << "]\n\n\"OPEC said oil barrels price at the refinery\"\n";
    const auto by_ids = run_trainer({"predict", "--checkpoint", run, "--input", dir + "/ids.jsonl", "--top-k", "1"}, dir);
    INFO(by_ids.err);
    REQUIRE(by_ids.exit_code == 0);
    const std::vector<Json> id_lines = parse_json_lines(by_ids.out);
    REQUIRE(id_lines.size() == 2);
    CHECK(id_lines[0]["line"] == 1);
    CHECK(id_lines[1]["line"] == 3);
    CHECK(id_lines[0]["top"] == lines[0]["top"]);
    CHECK(id_lines[1]["top"] == lines[0]["top"]);
  }
  SECTION("an id outside the vocabulary, and a line that is neither ids nor text") {
    std::ofstream(dir + "/bad.jsonl") << "[1, 4, 5]\n[1, 100000]\n{\"text\": 1}\n";
    const auto bad = run_trainer({"predict", "--checkpoint", run, "--input", dir + "/bad.jsonl"}, dir);
    CHECK(bad.exit_code == 3);
    CHECK_THAT(bad.err, Catch::Contains("bad.jsonl:2: token 2 is 100000, outside the model's vocabulary"));
    const auto skipped = run_trainer(
        {"predict", "--checkpoint", run, "--input", dir + "/bad.jsonl", "--set", "data.on_bad_file=skip"}, dir);
    CHECK(skipped.exit_code == 0);
    CHECK_THAT(skipped.err, Catch::Contains("bad.jsonl:3: expected a list of token ids or a string of text, found an object"));
    CHECK(parse_json_lines(skipped.out).size() == 1);
  }
  SECTION("a binary file, a text without words, and texts the vocabulary cannot read") {
    // Read as words, a binary file would still get a confident class.
    std::ofstream(dir + "/image.txt", std::ios::binary) << std::string("\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16);
    const auto binary = run_trainer({"predict", "--checkpoint", run, "--input", dir + "/image.txt"}, dir);
    CHECK(binary.exit_code == 3);
    CHECK_THAT(binary.err, Catch::Contains(dir + "/image.txt: not text: byte 9 is a NUL"));
    CHECK(binary.out.empty());
    std::ofstream(dir + "/blank.txt") << " ,;\n\n";
    const auto blank = run_trainer({"predict", "--checkpoint", run, "--input", dir + "/blank.txt"}, dir);
    CHECK(blank.exit_code == 3);
    CHECK_THAT(blank.err, Catch::Contains(dir + "/blank.txt: holds no words, so there is nothing to classify"));
    std::ofstream(dir + "/empty.jsonl") << "[]\n";
    const auto empty = run_trainer({"predict", "--checkpoint", run, "--input", dir + "/empty.jsonl"}, dir);
    CHECK(empty.exit_code == 3);
    CHECK_THAT(empty.err, Catch::Contains(dir + "/empty.jsonl:1: an empty list of token ids"));
    // Under skip, a folder of only such files predicts nothing: a data error.
    fs::create_directories(dir + "/unusable");
    fs::copy_file(dir + "/image.txt", dir + "/unusable/a.txt");
    fs::copy_file(dir + "/blank.txt", dir + "/unusable/b.txt");
    const auto none = run_trainer(
        {"predict", "--checkpoint", run, "--input", dir + "/unusable", "--set", "data.on_bad_file=skip"}, dir);
    CHECK(none.exit_code == 3);
    CHECK_THAT(none.err, Catch::Contains("skipping " + dir + "/unusable/a.txt: not text") &&
                             Catch::Contains("skipping " + dir + "/unusable/b.txt: holds no words") &&
                             Catch::Contains(dir + "/unusable: nothing to predict: all 2 inputs were left out"));
    // One usable text among them is predicted, with the others counted.
    std::ofstream(dir + "/unusable/c.txt") << "zzyzx qwxv frobnicate wheat";
    const auto some = run_trainer(
        {"predict", "--checkpoint", run, "--input", dir + "/unusable", "--set", "data.on_bad_file=skip"}, dir);
    INFO(some.err);
    CHECK(some.exit_code == 0);
    CHECK(parse_json_lines(some.out).size() == 1);
    CHECK_THAT(some.err, Catch::Contains("4 words, 3 (75.0%) not in the run's vocabulary") &&
                             Catch::Contains("the predictions read mostly unknown words") &&
                             Catch::Contains("predicted 1 sequence") && Catch::Contains("2 skipped"));
    CHECK_THAT(texts.err, !Catch::Contains("mostly unknown words"));
  }
}
