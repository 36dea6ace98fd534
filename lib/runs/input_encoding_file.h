#pragma once
// The run directory's record of how its inputs were made: RUN_DIR/inputs.json
// (the data's description and its tabular or sequence encoding) and, for a
// run trained on text, RUN_DIR/vocabulary.txt (one word a line, line r
// holding the word of rank r). `trainer predict` reads them to build the
// model and encode new rows or text as training did, with no training data
// at hand. Torch-free.
#include <optional>
#include <string>

#include "spec/data_info.h"
#include "spec/input_encoding.h"

namespace trainer {

struct RecordedInputs {
  DataInfo info;  // name, input_shape, token_inputs, vocabulary, classes, class_names, target_shape
  InputEncoding encoding;
};

std::string input_encoding_path(const std::string& run_dir);
std::string vocabulary_path(const std::string& run_dir);

// Writes both files atomically (the vocabulary first, so that an
// inputs.json never names a vocabulary that is not there). Nothing is
// written for an empty encoding. Throws IoError.
void write_recorded_inputs(const std::string& run_dir, const DataInfo& info, const InputEncoding& encoding);

// nullopt when the run has no inputs.json (a run of another data kind, or
// one trained before trainer kept it). Throws DataError naming the file and
// key when it or the vocabulary is damaged.
std::optional<RecordedInputs> read_recorded_inputs(const std::string& run_dir);

}  // namespace trainer
