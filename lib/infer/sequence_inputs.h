#pragma once
// Token sequences as a sequence model trained on Reuters-style data reads
// them: text numbered with the run's vocabulary (data/word_ids.h), or token
// ids as the model sees them, padded and truncated to its length as
// training did.
#include <string>

#include "infer/row_inputs.h"
#include "spec/data_info.h"
#include "spec/experiment_config.h"
#include "spec/input_encoding.h"

namespace trainer {

// `input`: a folder (its .txt files, subfolders searched, one document
// each), a .jsonl file (a line a sequence: a list of token ids, or a string
// of text), a .npy of token ids (2-D, a row a sequence; 1-D for one), or any
// other file, read as one document of text. Text needs the run's
// vocabulary: a run trained on word ids (reuters.npz) takes ids only. Throws
// DataError naming the file (and line) of what it cannot read, a binary file
// (a NUL byte), a text without words or an empty list of ids, or a token id
// outside the model's vocabulary; under data.on_bad_file: skip, a text file
// or a JSON line that cannot be used is left out with a warning. Texts whose
// words are mostly unknown to the vocabulary are predicted with a warning.
RowInputs read_sequence_inputs(const std::string& input, const DataConfig& data, const DataInfo& info,
                               const SequenceEncoding& encoding);

}  // namespace trainer
