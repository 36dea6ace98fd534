// tabular: CSV (quoting, class names, errors with their lines), .npy and
// .npz; class labels and regression targets; the split and standardising.
#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <set>

#include "formats/csv_table.h"
#include "data/dataset.h"
#include "test_paths.h"
#include "util/error.h"

using namespace trainer;

namespace {

std::string write(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

// A .npy file of float64 (fortran_order False) or int64 values.
std::string npy(const std::vector<int64_t>& shape, const std::string& descr, const std::string& data) {
  std::string dims;
  for (int64_t d : shape) dims += std::to_string(d) + ",";
  std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (" + dims + "), }";
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string out = "\x93NUMPY\x01";
  out += '\0';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>(header.size() >> 8);
  return out + header + data;
}

template <class T> std::string bytes_of(const std::vector<T>& values) {
  return {reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T)};
}

// A split's rows of two features, sorted (the split shuffles them).
using Rows = std::vector<std::pair<float, float>>;
Rows rows_of(const TensorDataset& split) {
  Rows rows;
  for (int64_t r = 0; r < split.size(); ++r)
    rows.emplace_back(split.inputs[r][0].item<float>(), split.inputs[r][1].item<float>());
  std::sort(rows.begin(), rows.end());
  return rows;
}

DataConfig tabular(const std::string& path) {
  DataConfig config;
  config.dataset = DatasetKind::kTabular;
  config.path = path;
  config.validation_split = 0.25;
  return config;
}

}  // namespace

TEST_CASE("CSV: quoted fields, line ends, blank lines, and the errors name the line", "[data][tabular]") {
  const CsvTable table = parse_csv("\xEF\xBB\xBF" "a,\"b, with \"\"quotes\"\"\",c\r\n1,2,\"x\ny\"\n\n3,4,z\n", "t.csv");
  REQUIRE(table.header.size() == 3);
  CHECK(table.header[1] == "b, with \"quotes\"");
  REQUIRE(table.rows.size() == 2);
  CHECK(table.rows[0][2] == "x\ny");
  CHECK(table.lines == std::vector<int64_t>{2, 5});
  CHECK_THROWS_WITH(parse_csv("a,b\n1,2\n3\n", "t.csv"), Catch::Contains("t.csv:3: 1 fields, the header has 2"));
  CHECK_THROWS_WITH(parse_csv("a,b\n1,\"2\n", "t.csv"), Catch::Contains("t.csv:2: a quoted field is not closed"));
  CHECK_THROWS_WITH(parse_csv("a,b\n1,\"2\"x\n", "t.csv"), Catch::Contains("t.csv:2: text after a quoted field"));
  CHECK_THROWS_WITH(parse_csv("\n\n", "t.csv"), Catch::Contains("t.csv: empty"));
  // A binary file (a sparse one: all NUL) stops at its first byte, not after reading it whole.
  CHECK_THROWS_WITH(parse_csv(std::string(3 << 20, '\0'), "t.csv"), Catch::Contains("t.csv:1: a NUL byte"));
  CHECK_THROWS_WITH(parse_csv("a,b\n" + std::string(2 << 20, 'x'), "t.csv"),
                    Catch::Contains("t.csv:2: a field longer than 1 MiB"));
}

TEST_CASE("tabular CSV: named classes numbered in sorted order, real targets, errors", "[data][tabular]") {
  const std::string dir = testing::fresh_dir("tabular-csv");
  std::string rows = "x1,x2,kind\n";
  for (int i = 0; i < 8; ++i) rows += std::to_string(i) + "," + std::to_string(10 * i) + "," + (i % 2 ? "owl" : "cat") + "\n";
  DataConfig config = tabular(write(dir + "/t.csv", rows));
  const DataSplits data = load_dataset(config, 1);
  CHECK(data.info.input_shape == std::vector<int64_t>{2});
  CHECK(data.info.classes == 2);
  CHECK(data.info.class_names == std::vector<std::string>{"cat", "owl"});
  CHECK(data.train.size() == 6);
  CHECK(data.valid.size() == 2);
  // Each row keeps its label: odd first features are owls (1).
  const auto all = torch::cat({data.train.inputs, data.valid.inputs});
  const auto labels = torch::cat({data.train.labels, data.valid.labels});
  for (int64_t i = 0; i < 8; ++i) CHECK(labels[i].item<int64_t>() == all[i][0].item<int64_t>() % 2);
  CHECK(torch::allclose(all.select(1, 1), all.select(1, 0) * 10));

  SECTION("regression on a named column, standardised with the training rows' statistics") {
    config.tabular.task = TabularTask::kRegression;
    config.tabular.target = "x2";
    config.path = write(dir + "/r.csv", "x1,x2,extra\n1,2,5\n2,4,5\n3,6,5\n4,8,5\n");
    config.tabular.standardize = true;
    config.validation_split = 0.5;
    const DataSplits r = load_dataset(config, 1);
    CHECK(r.info.target_shape == std::vector<int64_t>{1});
    CHECK(r.train.labels.sizes() == torch::IntArrayRef({2, 1}));
    CHECK(torch::allclose(r.train.inputs.mean({0}), torch::zeros({2}), 1e-5, 1e-5));
    // The constant column is shifted, not divided by zero.
    CHECK(torch::allclose(r.train.inputs.select(1, 1), torch::zeros({2})));
    // x2 = 2 x1: each row's target still rises with its (standardised) x1.
    const auto t = r.train.labels.squeeze(1), x1 = r.train.inputs.select(1, 0);
    CHECK(((t[0] - t[1]) * (x1[0] - x1[1])).item<float>() > 0);
    CHECK(std::set<float>{t[0].item<float>(), t[1].item<float>()}.size() == 2);
  }
  SECTION("a cell that is no number, a missing column, a class only in validation") {
    config.path = write(dir + "/bad.csv", "x1,x2,kind\n1,2,cat\n3,n/a,owl\n");
    CHECK_THROWS_WITH(load_dataset(config, 1), Catch::Contains(dir + "/bad.csv:3: column 2 ('x2') holds 'n/a', not a number"));
    // Beyond float32 is refused naming the cell, never read as inf (a run that "diverges").
    for (const std::string big : {"1e39", "-1e308", "3.5e38"}) {
      config.path = write(dir + "/big.csv", "x1,x2,kind\n1,2,cat\n3,4,owl\n5," + big + ",cat\n");
      CHECK_THROWS_WITH(load_dataset(config, 1), Catch::Contains(dir + "/big.csv:4: column 2 ('x2') holds '" + big +
                                                                 "', beyond the float32 range"));
    }
    // A huge cell is quoted in part, a NUL is named rather than cutting the message short.
    config.path = write(dir + "/wide.csv", "x1,x2,kind\n1," + std::string(1000, '7') + "x,cat\n");
    try {
      load_dataset(config, 1);
      FAIL("a 1001-character cell that is no number was accepted");
    } catch (const DataError& e) {
      CHECK(std::string(e.what()).size() < 400);
      CHECK_THAT(e.what(), Catch::Contains("... (1001 bytes)"));
    }
    // The header decides first: a one-column file is refused before its body (here: binary) is read.
    config.path = write(dir + "/one.csv", std::string("x1\n1\n\0\0\0", 8));
    CHECK_THROWS_WITH(load_dataset(config, 1), Catch::Contains(dir + "/one.csv: one column"));
    config.path = write(dir + "/nul.csv", std::string("x1,x2,kind\n1,2\0,cat\n", 20));
    CHECK_THROWS_WITH(load_dataset(config, 1), Catch::Contains(dir + "/nul.csv:2: a NUL byte"));
    config.path = dir + "/t.csv";
    config.tabular.target = "species";
    CHECK_THROWS_WITH(load_dataset(config, 1), Catch::Contains("no column 'species'; its columns: x1, x2, kind"));
    config.tabular.target = "kind";
    config.validation_path = write(dir + "/v.csv", "x1,x2,kind\n1,2,cat\n1,2,dog\n");
    CHECK_THROWS_WITH(load_dataset(config, 1), Catch::Contains(dir + "/v.csv:3: class 'dog' is not among"));
    config.tabular.task = TabularTask::kRegression;
    CHECK_THROWS_WITH(load_dataset(config, 1), Catch::Contains("t.csv:2: the target 'cat' is not a number"));
  }
}

TEST_CASE("tabular CSV: columns chosen by name or left out, the validation file's found by name", "[data][tabular]") {
  const std::string dir = testing::fresh_dir("tabular-columns");
  DataConfig config = tabular(write(dir + "/t.csv", "id,a,note,b,label\n1,1.5,\"fine, dry\",2,x\n2,2.5,wet,3,y\n"
                                                      "3,3.5,,4,x\n4,4.5,cold,5,y\n"));
  config.validation_path = write(dir + "/v.csv", "b,label,a,id,note\n30,y,10,9,warm\n");
  config.tabular.target = "label";
  SECTION("exclude: every other column is a feature, in the file's order") {
    config.tabular.exclude = {"id", "note"};
    const DataSplits data = load_dataset(config, 1);
    REQUIRE(data.info.input_shape == std::vector<int64_t>{2});
    REQUIRE(data.encoding.tabular);
    CHECK(data.encoding.tabular->columns == std::vector<std::string>{"a", "b"});
    CHECK(rows_of(data.train) == Rows{{1.5f, 2}, {2.5f, 3}, {3.5f, 4}, {4.5f, 5}});
    // The validation file has its columns in another order: found by name.
    REQUIRE(data.valid.size() == 1);
    CHECK(data.valid.inputs[0][0].item<float>() == 10.0f);
    CHECK(data.valid.inputs[0][1].item<float>() == 30.0f);
  }
  SECTION("columns: those, in that order") {
    config.tabular.columns = {"b", "id"};
    const DataSplits data = load_dataset(config, 1);
    CHECK(data.encoding.tabular->columns == std::vector<std::string>{"b", "id"});
    CHECK(rows_of(data.train) == Rows{{2, 1}, {3, 2}, {4, 3}, {5, 4}});
  }
  SECTION("a column that is not there is a data error naming the key and the file's columns") {
    config.tabular.exclude = {"id", "notes"};
    CHECK_THROWS_WITH(load_dataset(config, 1), Catch::Contains(dir + "/t.csv: no column 'notes'; its columns: id, a, "
                                                               "note, b, label"));
  }
  SECTION("without them, the text column is the error it was, with the way out") {
    try {
      load_dataset(config, 1);
      FAIL("a text column was read as a feature");
    } catch (const DataError& e) {
      CHECK_THAT(e.what(), Catch::Contains("column 3 ('note') holds 'fine, dry', not a number"));
      CHECK_THAT(e.hint(), Catch::Contains("data.tabular.exclude"));
    }
  }
}

TEST_CASE("tabular numpy: .npz arrays by name, .npy with a targets file", "[data][tabular]") {
  const std::string dir = testing::fresh_dir("tabular-npy");
  const std::vector<double> x{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};  // 6 rows of 2
  const std::vector<int64_t> y{0, 1, 2, 0, 1, 2};
  write(dir + "/x.npy", npy({6, 2}, "<f8", bytes_of(x)));
  write(dir + "/y.npy", npy({6}, "<i8", bytes_of(y)));
  DataConfig config = tabular(dir + "/x.npy");
  config.validation_split = 0.5;
  config.tabular.targets_path = dir + "/y.npy";
  const DataSplits data = load_dataset(config, 3);
  CHECK(data.info.classes == 3);
  CHECK(data.info.input_shape == std::vector<int64_t>{2});
  const auto all = torch::cat({data.train.inputs, data.valid.inputs});
  const auto labels = torch::cat({data.train.labels, data.valid.labels});
  for (int64_t i = 0; i < 6; ++i) CHECK(labels[i].item<int64_t>() == (all[i][0].item<int64_t>() / 2) % 3);

  SECTION("regression targets of two values per row") {
    write(dir + "/y2.npy", npy({6, 2}, "<f8", bytes_of(x)));
    config.tabular.targets_path = dir + "/y2.npy";
    config.tabular.task = TabularTask::kRegression;
    const DataSplits r = load_dataset(config, 3);
    CHECK(r.info.target_shape == std::vector<int64_t>{2});
    CHECK(torch::allclose(r.train.labels, r.train.inputs));
  }
  SECTION("fewer targets than rows, labels that are not classes") {
    write(dir + "/short.npy", npy({5}, "<i8", bytes_of(std::vector<int64_t>{0, 1, 2, 0, 1})));
    config.tabular.targets_path = dir + "/short.npy";
    CHECK_THROWS_WITH(load_dataset(config, 3), Catch::Contains("5 targets for the 6 rows"));
    write(dir + "/real.npy", npy({6}, "<f8", bytes_of(std::vector<double>{0.5, 1, 2, 0, 1, 2})));
    config.tabular.targets_path = dir + "/real.npy";
    CHECK_THROWS_WITH(load_dataset(config, 3), Catch::Contains("the targets are not class labels"));
  }
}
