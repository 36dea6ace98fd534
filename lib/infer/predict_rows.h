#pragma once
// `trainer predict` for models that read rows, not image files: a tabular
// model's rows (CSV or numpy) and a sequence model's texts or token ids,
// encoded as the run's training data was (runs/input_encoding_file.h), a
// batch at a time; one JSON line per row, in input order.
#include <cstdint>

#include "infer/predict.h"

namespace trainer {

// Returns the number of rows predicted. The run's inputs.json (in
// options.run_dir) gives the model's description and the encoding; a run
// without one (trained before trainer kept it, or a checkpoint outside its
// run) has them from its training data, read again, with a warning. Throws
// DataError for inputs it cannot read (tabular_inputs.h,
// sequence_inputs.h), UsageError where the output would replace what the
// user has (predict_outputs.h).
int64_t run_predict_rows(const ExperimentConfig& config, const PredictOptions& options);

}  // namespace trainer
