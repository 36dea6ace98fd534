// RUN_DIR/inputs.json and vocabulary.txt: written and read back whole, and
// a damaged one is a data error naming the file and the key, never a crash
// or a misread.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "runs/input_encoding_file.h"
#include "test_paths.h"
#include "util/error.h"
#include "util/read_file.h"

using namespace trainer;

namespace {

DataInfo table_info() {
  DataInfo info;
  info.name = "tabular";
  info.input_shape = {3};
  info.classes = 2;
  info.class_names = {"no", "yes"};
  return info;
}

DataInfo text_info() {
  DataInfo info;
  info.name = "reuters";
  info.input_shape = {40};
  info.token_inputs = true;
  info.vocabulary = 9;
  info.classes = 3;
  return info;
}

void replace_in_file(const std::string& path, const std::string& from, const std::string& to) {
  std::string text = read_text_file(path).value();
  const size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  text.replace(at, from.size(), to);
  std::ofstream(path, std::ios::trunc) << text;
}

}  // namespace

TEST_CASE("a table's encoding is kept exactly: float32 statistics, columns, classes", "[runs][predict]") {
  const std::string dir = testing::fresh_dir("inputs-table");
  InputEncoding encoding;
  encoding.tabular = TabularEncoding{{"a", "b", "c"}, "label", {0.1f, -2.5f, 3.3e7f}, {1.0f, 0.3f, 1e-3f}};
  write_recorded_inputs(dir, table_info(), encoding);
  const std::optional<RecordedInputs> read = read_recorded_inputs(dir);
  REQUIRE(read);
  CHECK(read->info.input_shape == std::vector<int64_t>{3});
  CHECK(read->info.class_names == std::vector<std::string>{"no", "yes"});
  REQUIRE(read->encoding.tabular);
  CHECK(!read->encoding.sequences);
  CHECK(read->encoding.tabular->columns == encoding.tabular->columns);
  CHECK(read->encoding.tabular->target == "label");
  // Each float32 value comes back to the same float32.
  for (size_t i = 0; i < 3; ++i) {
    CHECK(static_cast<float>(read->encoding.tabular->mean[i]) == static_cast<float>(encoding.tabular->mean[i]));
    CHECK(static_cast<float>(read->encoding.tabular->scale[i]) == static_cast<float>(encoding.tabular->scale[i]));
  }
  CHECK(!std::filesystem::exists(vocabulary_path(dir)));
}

TEST_CASE("a text run's vocabulary is a file of one word a line, in rank order", "[runs][predict]") {
  const std::string dir = testing::fresh_dir("inputs-text");
  InputEncoding encoding;
  SequenceEncoding sequences;
  sequences.words = {"the", "of", "said", "it's"};
  sequences.num_words = 8;
  sequences.padding = SequenceEnd::kPost;
  encoding.sequences = sequences;
  write_recorded_inputs(dir, text_info(), encoding);
  CHECK(read_text_file(vocabulary_path(dir)).value() == "the\nof\nsaid\nit's\n");
  const std::optional<RecordedInputs> read = read_recorded_inputs(dir);
  REQUIRE(read);
  REQUIRE(read->encoding.sequences);
  CHECK(read->encoding.sequences->words == sequences.words);
  CHECK(read->encoding.sequences->num_words == 8);
  CHECK(read->encoding.sequences->padding == SequenceEnd::kPost);
  CHECK(read->encoding.sequences->truncating == SequenceEnd::kPre);
  CHECK(read->info.vocabulary == 9);
  CHECK(read->info.token_inputs);

  SECTION("a vocabulary of another length than inputs.json says") {
    std::ofstream(vocabulary_path(dir), std::ios::app) << "extra\n";
    CHECK_THROWS_WITH(read_recorded_inputs(dir), Catch::Contains("vocabulary.txt: 5 words; its inputs.json says 4"));
  }
  SECTION("a missing vocabulary") {
    std::filesystem::remove(vocabulary_path(dir));
    CHECK_THROWS_AS(read_recorded_inputs(dir), DataError);
  }
  SECTION("a padding that is neither pre nor post") {
    replace_in_file(input_encoding_path(dir), "\"post\"", "\"middle\"");
    CHECK_THROWS_WITH(read_recorded_inputs(dir), Catch::Contains("inputs.json: sequences.padding: expected pre or post"));
  }
}

TEST_CASE("no inputs.json is no record, and a damaged one names the file and the key", "[runs][predict]") {
  const std::string dir = testing::fresh_dir("inputs-damaged");
  CHECK(!read_recorded_inputs(dir));
  write_recorded_inputs(dir, table_info(), InputEncoding{});
  CHECK(!read_recorded_inputs(dir));  // nothing is written for kinds without an encoding

  InputEncoding encoding;
  encoding.tabular = TabularEncoding{{"a", "b", "c"}, "label", {}, {}};
  write_recorded_inputs(dir, table_info(), encoding);
  const std::string path = input_encoding_path(dir);
  SECTION("not JSON") {
    std::ofstream(path, std::ios::trunc) << "{\"format\": 1, \"dataset\"";
    CHECK_THROWS_WITH(read_recorded_inputs(dir), Catch::Contains(path + ": not a JSON object"));
  }
  SECTION("a key of the wrong type") {
    replace_in_file(path, "\"classes\": 2", "\"classes\": \"two\"");
    CHECK_THROWS_WITH(read_recorded_inputs(dir), Catch::Contains("classes: expected an integer, found string"));
  }
  SECTION("columns that do not match the input's width") {
    replace_in_file(path, "\"c\"", "\"c\", \"d\"");
    CHECK_THROWS_WITH(read_recorded_inputs(dir), Catch::Contains("tabular.columns: 4 names for 3 features"));
  }
  SECTION("a newer format") {
    replace_in_file(path, "\"format\": 1", "\"format\": 2");
    CHECK_THROWS_WITH(read_recorded_inputs(dir), Catch::Contains("format 2, which this trainer does not read"));
  }
}
