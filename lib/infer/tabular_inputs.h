#pragma once
// A table's rows as a model trained on a table reads them: the feature
// columns it was trained on, found by name in a CSV file's header (in any
// order, the target and other columns ignored), or a numpy array's columns
// in the training order; standardised with the training rows' statistics.
#include <string>

#include "infer/row_inputs.h"
#include "spec/data_info.h"
#include "spec/experiment_config.h"
#include "spec/input_encoding.h"

namespace trainer {

// `path`: a .csv file with a header row, a .npy of rows (2-D, or 1-D for
// one row), or a .npz holding the array data.tabular.features names.
// Throws DataError naming the file, line and column of what it cannot read
// (a missing feature column, a field that is not a number, a row of another
// width); under data.on_bad_file: skip, a CSV row with a bad field is left
// out with a warning instead.
RowInputs read_tabular_inputs(const std::string& path, const DataConfig& data, const DataInfo& info,
                              const TabularEncoding& encoding);

}  // namespace trainer
