#include "infer/tabular_inputs.h"

#include <algorithm>
#include <optional>

#include "formats/csv_numbers.h"
#include "formats/csv_table.h"
#include "formats/file_bytes.h"
#include "formats/npy_format.h"
#include "formats/zip_archive.h"
#include "util/error.h"
#include "util/logging.h"
#include "util/read_file.h"
#include "util/text.h"

namespace trainer {
namespace {

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string out;
  for (int64_t d : shape) out += (out.empty() ? "" : ", ") + std::to_string(d);
  return "(" + out + (shape.size() == 1 ? ",)" : ")");
}

// Which field of a CSV row each feature comes from: by name when the run
// knows its columns, else the first `width` fields in order.
std::vector<size_t> feature_fields(const std::vector<std::string>& header, const std::string& path, int64_t width,
                                   const TabularEncoding& encoding) {
  std::vector<size_t> fields;
  if (encoding.columns.empty()) {
    if (static_cast<int64_t>(header.size()) != width)
      throw DataError(path + ": " + std::to_string(header.size()) + " columns; the model was trained on numpy rows of " +
                          std::to_string(width) + " features",
                      "give exactly those features, in the training order, under a header row");
    for (int64_t c = 0; c < width; ++c) fields.push_back(static_cast<size_t>(c));
    return fields;
  }
  std::vector<std::string> missing;
  for (const std::string& column : encoding.columns) {
    const auto found = std::find(header.begin(), header.end(), column);
    if (found == header.end()) missing.push_back("'" + excerpt(column) + "'");
    fields.push_back(static_cast<size_t>(found - header.begin()));
  }
  if (!missing.empty())
    throw DataError(path + ": no column " + listed_names(missing) + "; its columns: " + listed_names(header),
                    "the model reads the columns it was trained on, by name: " + listed_names(encoding.columns));
  std::vector<std::string> ignored;
  for (size_t c = 0; c < header.size(); ++c)
    if (std::find(fields.begin(), fields.end(), c) == fields.end() && header[c] != encoding.target)
      ignored.push_back(header[c]);
  if (!ignored.empty()) log().info("{}: not features of the model, ignored: {}", path, listed_names(ignored));
  return fields;
}

RowInputs read_csv_rows(const std::string& path, const DataConfig& data, int64_t width,
                        const TabularEncoding& encoding, std::vector<double>& values) {
  CsvReader reader = open_csv_file(path);
  std::vector<std::string> header;
  if (!reader.next_row(header)) throw DataError(path + ": empty; expected a header row of column names, then rows");
  const std::vector<size_t> fields = feature_fields(header, path, width, encoding);
  RowInputs rows;
  std::vector<double> row(static_cast<size_t>(width));
  for (std::vector<std::string> fields_read; reader.next_row(fields_read);) {
    const int64_t line = reader.row_line();
    try {
      check_csv_width(fields_read, header.size(), path, line);
      for (size_t f = 0; f < fields.size(); ++f) {
        const std::string& field = fields_read[fields[f]];
        const std::optional<double> value = float32_field(field);
        if (!value)
          throw DataError(path + ":" + std::to_string(line) + ": column " + std::to_string(fields[f] + 1) + " ('" +
                              excerpt(header[fields[f]]) + "') holds '" + excerpt(field) + "', " + why_not_float32(field),
                          "features must be numbers a float32 holds, as in training");
        row[f] = *value;
      }
    } catch (const DataError& e) {
      if (data.on_bad_file == BadFilePolicy::kError) throw;
      log().warn("skipping {}", e.what());
      ++rows.skipped;
      continue;
    }
    values.insert(values.end(), row.begin(), row.end());
    rows.places.push_back({{"line", line}});
  }
  return rows;
}

RowInputs read_numpy_rows(const std::string& path, const DataConfig& data, int64_t width, std::vector<double>& values) {
  NpyArray array;
  std::string name = path;
  if (ends_with(path, ".npz")) {
    const auto members = read_zip_members(read_file_bytes(path), path);
    const std::string key = data.tabular.features + ".npy";
    if (!members.count(key)) {
      std::vector<std::string> arrays;
      for (const auto& [member, bytes] : members) arrays.push_back(member);
      throw DataError(path + ": no array " + key + "; it holds " + listed_names(arrays),
                      "data.tabular.features names the array of features");
    }
    name = path + ":" + key;
    array = parse_npy(members.at(key), name);
  } else {
    array = parse_npy(read_file_bytes(path), path);
  }
  const bool one_row = array.shape.size() == 1;
  if (array.shape.empty() || array.shape.size() > 2 || array.shape.back() != width)
    throw DataError(name + ": an array of shape " + shape_text(array.shape) + "; the model reads rows of " +
                        std::to_string(width) + " features: (rows, " + std::to_string(width) + "), or (" +
                        std::to_string(width) + ") for one row");
  values = npy_to_double(array, name);
  RowInputs rows;
  const int64_t count = one_row ? 1 : array.shape[0];
  for (int64_t r = 0; r < count; ++r) rows.places.push_back({{"row", r}});
  for (size_t i = 0; i < values.size(); ++i)
    if (!fits_float32(values[i]))
      throw DataError(name + ": row " + std::to_string(i / static_cast<size_t>(width)) + ", feature " +
                      std::to_string(i % static_cast<size_t>(width)) + " is " + std::to_string(values[i]) +
                      ", not a finite number a float32 holds");
  return rows;
}

}  // namespace

RowInputs read_tabular_inputs(const std::string& path, const DataConfig& data, const DataInfo& info,
                              const TabularEncoding& encoding) {
  if (const std::string problem = regular_file_problem(path); !problem.empty())
    throw DataError(printable(path) + " " + problem, "--input names a .csv, .npy or .npz file of rows");
  const int64_t width = info.input_shape.at(0);
  std::vector<double> values;
  RowInputs rows;
  if (ends_with(path, ".npy") || ends_with(path, ".npz"))
    rows = read_numpy_rows(path, data, width, values);
  else
    rows = read_csv_rows(path, data, width, encoding, values);
  const auto count = static_cast<int64_t>(rows.places.size());
  // float32 first, then the statistics in float32: the arithmetic training did.
  torch::Tensor features = torch::tensor(values, torch::kFloat64).reshape({count, width}).to(torch::kFloat32);
  if (!encoding.mean.empty()) {
    const torch::Tensor mean = torch::tensor(encoding.mean, torch::kFloat64).to(torch::kFloat32);
    const torch::Tensor scale = torch::tensor(encoding.scale, torch::kFloat64).to(torch::kFloat32);
    features = ((features - mean) / scale).contiguous();
  }
  rows.inputs = features;
  return rows;
}

}  // namespace trainer
