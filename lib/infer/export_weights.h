#pragma once
// `trainer export`: a checkpoint's weights in a file Python reads without
// trainer (weights_file.h), under the model's own parameter names, with the
// resolved config beside it.
#include <cstdint>
#include <string>

#include "spec/experiment_config.h"

namespace trainer {

enum class WeightsFormat { kSafetensors, kNpz };

struct ExportedWeights {
  std::string weights;  // the file written
  std::string config;   // the resolved config beside it: OUT's stem + ".config.yaml"
  int64_t tensors = 0;
  int64_t bytes = 0;    // the tensors' data
};

// The format `--format` names, or, when it names none, the one OUT's
// extension names (.npz; safetensors for any other). UsageError when the
// two disagree: a .npz holding safetensors would fail in numpy.load.
WeightsFormat weights_format_for(const std::string& format_option, const std::string& out);

// `experiment_file`: the file `config` was read from. Throws UsageError
// when either output is the checkpoint, that file, or a file a run keeps
// (before anything is written); DataError when the data set cannot be
// described (the model's shapes come from it), IoError when a file cannot
// be written, and what load_checkpoint throws.
ExportedWeights export_weights(const ExperimentConfig& config, const std::string& checkpoint,
                               const std::string& experiment_file, WeightsFormat format, const std::string& out);

}  // namespace trainer
