// tabular: rows of numbers, from a CSV file (a header row of column names),
// a .npy file of features with a .npy of targets, or a .npz holding both;
// the target a class label or real values (regression).
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <set>

#include "formats/csv_numbers.h"
#include "formats/csv_table.h"
#include "data/dataset_loaders.h"
#include "formats/file_bytes.h"
#include "data/image_folder_index.h"
#include "formats/npy_format.h"
#include "formats/zip_archive.h"
#include "util/error.h"
#include "util/logging.h"
#include "util/text.h"

namespace trainer {
namespace {

// One file's rows: features row by row, and the targets as the file gave
// them (text from a CSV, numbers from numpy).
struct Table {
  int64_t rows = 0, width = 0;
  std::vector<double> features;
  std::vector<std::string> target_text;  // CSV
  std::vector<double> target_values;     // numpy, or parsed CSV
  int64_t target_width = 1;
  std::vector<int64_t> lines;  // CSV: each row's line, for messages
  std::string name;
  std::vector<std::string> columns;  // CSV: the feature columns' names
  std::string target;                // the target column's (CSV) or array's (.npz) name
};

// The feature columns' places in `header`: data.tabular.columns, else
// every column but the target and data.tabular.exclude. `names` (the
// training file's feature columns) finds a validation file's by name, in
// whatever order it has them.
std::vector<size_t> feature_places(const std::vector<std::string>& header, size_t target, const TabularConfig& tabular,
                                   const std::vector<std::string>* names, const std::string& path) {
  const auto place_of = [&](const std::string& name, const char* key) {
    const auto found = std::find(header.begin(), header.end(), name);
    if (found == header.end())
      throw DataError(path + ": no column '" + excerpt(name) + "'; its columns: " + listed_names(header),
                      std::string(key) + " names columns of the file");
    return static_cast<size_t>(found - header.begin());
  };
  std::vector<size_t> places;
  if (names) {
    for (const std::string& name : *names) places.push_back(place_of(name, "the training file's feature columns"));
    return places;
  }
  if (!tabular.columns.empty()) {
    for (const std::string& name : tabular.columns) places.push_back(place_of(name, "data.tabular.columns"));
    return places;
  }
  std::vector<size_t> excluded;
  for (const std::string& name : tabular.exclude) excluded.push_back(place_of(name, "data.tabular.exclude"));
  for (size_t c = 0; c < header.size(); ++c)
    if (c != target && std::find(excluded.begin(), excluded.end(), c) == excluded.end()) places.push_back(c);
  return places;
}

Table read_csv(const std::string& path, const TabularConfig& tabular, const std::vector<std::string>* names) {
  CsvReader reader = open_csv_file(path);
  std::vector<std::string> header;
  if (!reader.next_row(header)) throw DataError(path + ": empty; expected a header row of column names, then rows");
  // The header decides before a row of the body is read.
  size_t target = header.size() - 1;
  if (!tabular.target.empty()) {
    const auto found = std::find(header.begin(), header.end(), tabular.target);
    if (found == header.end())
      throw DataError(path + ": no column '" + excerpt(tabular.target) + "'; its columns: " + listed_names(header),
                      "data.tabular.target names the target column");
    target = static_cast<size_t>(found - header.begin());
  }
  if (header.size() < 2) throw DataError(path + ": one column; expected features and a target column");
  const std::vector<size_t> places = feature_places(header, target, tabular, names, path);
  if (places.empty()) throw DataError(path + ": no feature columns left", "data.tabular.exclude leaves out every one");
  Table table;
  table.name = path;
  table.width = static_cast<int64_t>(places.size());
  table.target = header[target];
  for (size_t c : places) table.columns.push_back(header[c]);
  for (std::vector<std::string> row; reader.next_row(row);) {
    check_csv_width(row, header.size(), path, reader.row_line());
    table.target_text.push_back(row[target]);
    for (size_t c : places) {
      const std::string& field = row[c];
      const auto value = float32_field(field);
      if (!value)
        throw DataError(path + ":" + std::to_string(reader.row_line()) + ": column " + std::to_string(c + 1) + " ('" +
                            excerpt(header[c]) + "') holds '" + excerpt(field) + "', " + why_not_float32(field),
                        "features must be numbers a float32 holds; encode categories as numbers first, or leave "
                        "the column out (data.tabular.exclude)");
      table.features.push_back(*value);
    }
    table.lines.push_back(reader.row_line());
    ++table.rows;
  }
  return table;
}

// A 1-D or 2-D numeric array: rows and the values per row.
std::pair<int64_t, int64_t> rows_and_width(const NpyArray& array, const std::string& name) {
  if (array.shape.size() == 1) return {array.shape[0], 1};
  if (array.shape.size() == 2) return {array.shape[0], array.shape[1]};
  throw DataError(name + ": a " + std::to_string(array.shape.size()) + "-D array; expected rows (1-D or 2-D)");
}

Table from_arrays(const NpyArray& x, const std::string& x_name, const NpyArray& y, const std::string& y_name,
                  const std::string& name) {
  Table table;
  table.name = name;
  std::tie(table.rows, table.width) = rows_and_width(x, x_name);
  table.features = npy_to_double(x, x_name);
  int64_t target_rows = 0;
  std::tie(target_rows, table.target_width) = rows_and_width(y, y_name);
  if (target_rows != table.rows)
    throw DataError(y_name + ": " + std::to_string(target_rows) + " targets for the " + std::to_string(table.rows) +
                    " rows of " + x_name);
  table.target_values = npy_to_double(y, y_name);
  return table;
}

Table read_numpy(const std::string& path, const TabularConfig& tabular) {
  if (ends_with(path, ".npz")) {
    const auto members = read_zip_members(read_file_bytes(path), path);
    const std::string x_key = tabular.features + ".npy", y_key = (tabular.target.empty() ? "y" : tabular.target) + ".npy";
    for (const auto& key : {x_key, y_key})
      if (!members.count(key)) {
        std::string arrays;
        for (const auto& [member, bytes] : members) arrays += (arrays.empty() ? "" : ", ") + member;
        throw DataError(path + ": no array " + key + "; it holds " + arrays,
                        "data.tabular.features and data.tabular.target name the arrays");
      }
    Table table = from_arrays(parse_npy(members.at(x_key), path + ":" + x_key), path + ":" + x_key,
                              parse_npy(members.at(y_key), path + ":" + y_key), path + ":" + y_key, path);
    table.target = y_key.substr(0, y_key.size() - 4);
    return table;
  }
  return from_arrays(parse_npy(read_file_bytes(path), path), path,
                     parse_npy(read_file_bytes(tabular.targets_path), tabular.targets_path), tabular.targets_path, path);
}

Table read_table(const std::string& path, const TabularConfig& tabular,
                 const std::vector<std::string>* names = nullptr) {
  if (ends_with(path, ".csv")) return read_csv(path, tabular, names);
  if (ends_with(path, ".npy") || ends_with(path, ".npz")) return read_numpy(path, tabular);
  throw DataError(path + ": not a .csv, .npy or .npz file", "data.path names the table's file");
}

// Where row r of `table` is, for messages.
std::string row_place(const Table& table, size_t r) {
  return table.lines.empty() ? table.name + ": row " + std::to_string(r) : table.name + ":" + std::to_string(table.lines[r]);
}

// Class labels of every table: integers from 0 as they are, otherwise names
// numbered in sorted order (the training table's names; another name in
// the validation table is a data error).
std::vector<std::vector<int64_t>> class_labels(std::vector<Table*> tables, DataInfo& info) {
  bool integers = true;
  for (Table* t : tables)
    for (size_t r = 0; r < static_cast<size_t>(t->rows) && integers; ++r) {
      const auto v = t->target_text.empty() ? std::optional<double>(t->target_values[r]) : float32_field(t->target_text[r]);
      integers = v && *v >= 0 && *v == std::floor(*v) && *v < 1e9;
    }
  std::vector<std::vector<int64_t>> labels;
  if (integers) {
    int64_t top = 0;
    for (Table* t : tables) {
      labels.emplace_back();
      for (size_t r = 0; r < static_cast<size_t>(t->rows); ++r) {
        const double v = t->target_text.empty() ? t->target_values[r] : *float32_field(t->target_text[r]);
        labels.back().push_back(static_cast<int64_t>(v));
        top = std::max(top, labels.back().back());
      }
    }
    info.classes = top + 1;
    return labels;
  }
  if (tables[0]->target_text.empty())
    throw DataError(tables[0]->name + ": the targets are not class labels (integers from 0)",
                    "set data.tabular.task: regression for real-valued targets");
  const std::set<std::string> names(tables[0]->target_text.begin(), tables[0]->target_text.end());
  info.class_names.assign(names.begin(), names.end());
  info.classes = static_cast<int64_t>(names.size());
  for (Table* t : tables) {
    labels.emplace_back();
    for (size_t r = 0; r < static_cast<size_t>(t->rows); ++r) {
      const auto found = names.find(t->target_text[r]);
      if (found == names.end())
        throw DataError(row_place(*t, r) + ": class '" + excerpt(t->target_text[r]) + "' is not among the training file's classes");
      labels.back().push_back(std::distance(names.begin(), found));
    }
  }
  return labels;
}

std::vector<double> real_targets(Table& table) {
  if (table.target_text.empty()) return table.target_values;
  std::vector<double> values;
  for (size_t r = 0; r < table.target_text.size(); ++r) {
    const auto v = float32_field(table.target_text[r]);
    if (!v) throw DataError(row_place(table, r) + ": the target '" + excerpt(table.target_text[r]) + "' is not a number");
    values.push_back(*v);
  }
  return values;
}

TensorDataset rows_of(const Table& table, const torch::Tensor& targets, const std::vector<int64_t>& picked) {
  const torch::Tensor features =
      torch::tensor(table.features, torch::kFloat64).reshape({table.rows, table.width}).to(torch::kFloat32);
  const torch::Tensor index = torch::tensor(picked, torch::kInt64);
  return {features.index_select(0, index).contiguous(), targets.index_select(0, index).contiguous()};
}

torch::Tensor target_tensor(const DataConfig& config, const std::vector<int64_t>& labels, const std::vector<double>& values,
                            int64_t rows, int64_t width) {
  if (config.tabular.task == TabularTask::kClassification) return torch::tensor(labels, torch::kInt64);
  return torch::tensor(values, torch::kFloat64).reshape({rows, width}).to(torch::kFloat32);
}


std::vector<double> as_doubles(const torch::Tensor& values) {
  const torch::Tensor exact = values.to(torch::kFloat64).contiguous();
  return {exact.data_ptr<double>(), exact.data_ptr<double>() + exact.numel()};
}

}  // namespace

DataSplits load_tabular(const DataConfig& config) {
  Table train = read_table(config.path, config.tabular);
  std::optional<Table> valid;
  if (!config.validation_path.empty()) {
    valid = read_table(config.validation_path, config.tabular, train.columns.empty() ? nullptr : &train.columns);
    if (valid->width != train.width)
      throw DataError(config.validation_path + ": " + std::to_string(valid->width) + " features per row, " +
                      config.path + " " + std::to_string(train.width));
  }
  if (train.rows == 0) throw DataError(config.path + ": no rows");
  DataSplits splits;
  DataInfo& info = splits.info;
  info.name = "tabular";
  info.input_shape = {train.width};
  std::vector<Table*> tables{&train};
  if (valid) tables.push_back(&*valid);
  std::vector<torch::Tensor> targets;
  if (config.tabular.task == TabularTask::kClassification) {
    const auto labels = class_labels(tables, info);
    for (size_t i = 0; i < tables.size(); ++i) targets.push_back(target_tensor(config, labels[i], {}, 0, 0));
  } else {
    for (Table* t : tables) {
      if (t->target_width != train.target_width)
        throw DataError(t->name + ": " + std::to_string(t->target_width) + " targets per row, " + config.path + " " +
                        std::to_string(train.target_width));
      targets.push_back(target_tensor(config, {}, real_targets(*t), t->rows, t->target_width));
    }
    info.target_shape = {train.target_width};
  }
  const FolderSplit split = plan_folder_split(train.rows, valid ? std::optional<int64_t>(valid->rows) : std::nullopt,
                                              config, "rows");
  splits.train = rows_of(train, targets[0], split.train);
  splits.valid = valid ? rows_of(*valid, targets[1], split.valid) : rows_of(train, targets[0], split.valid);
  TabularEncoding encoding;
  encoding.columns = train.columns;
  encoding.target = train.target;
  if (config.tabular.standardize) {
    // The training rows' statistics, for both splits; a constant feature is
    // only shifted.
    const torch::Tensor mean = splits.train.inputs.mean({0});
    const torch::Tensor spread = splits.train.inputs.std({0}, /*unbiased=*/false);
    const torch::Tensor scale = torch::where(spread > 1e-12, spread, torch::ones_like(spread));
    for (auto* s : {&splits.train, &splits.valid}) s->inputs = ((s->inputs - mean) / scale).contiguous();
    encoding.mean = as_doubles(mean);
    encoding.scale = as_doubles(scale);
  }
  splits.encoding.tabular = std::move(encoding);
  log().info("tabular: {} rows of {} features{}", train.rows + (valid ? valid->rows : 0), train.width,
             config.tabular.task == TabularTask::kClassification ? ", " + std::to_string(info.classes) + " classes"
                                                                 : ", " + std::to_string(train.target_width) + " real target" +
                                                                       (train.target_width == 1 ? "" : "s"));
  return splits;
}

}  // namespace trainer
