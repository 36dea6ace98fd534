#pragma once
// model.init_from: a new run starts from weights trained before (by trainer
// or by PyTorch), the usual first step of fine-tuning. Unlike --resume, only
// the weights come along: the optimizer, the epochs and the schedule start
// afresh, and the model may differ from the one that wrote them (a new last
// layer, say): what matches by name and shape is loaded, the rest keeps its
// initialiser, and the log says which is which.
#include <torch/torch.h>

#include <string>
#include <utility>
#include <vector>

#include "models/model.h"
#include "spec/experiment_config.h"

namespace trainer {

// What init_from did to each tensor of the model, and what of the file it
// did not use.
struct InitialWeights {
  std::string source;  // the file read (a run directory's checkpoint, when a run was named)
  struct Row {
    std::string name;     // the model's name for it: its layer's (conv2d_1.weight) where it has one
    std::string outcome;  // "loaded", "skipped", "left"
    std::string why;      // "shape [10, 64] in the file, [46, 64] here", "not in the file", "from features.0.weight"
  };
  std::vector<Row> rows;
  std::vector<std::string> unused;  // the file's tensors (renamed) that no tensor of the model took

  int64_t count(const std::string& outcome) const;
  // One line of counts, then a line per tensor.
  std::string table() const;
};

// The tensors of `path`: a trainer checkpoint (.pt), a run directory (its
// best checkpoint, else its newest), .safetensors or .npz, in the file's
// order, on the CPU. `source` is set to the file read. Throws IoError for a
// file that cannot be read as such (naming it and what it expected).
std::vector<std::pair<std::string, torch::Tensor>> read_weights(const std::string& path, std::string& source);

// Loads model.init_from into `model` (on whatever device it is), after
// model.init_rename's rules, and logs its table. Throws ConfigError with
// model.init_strict when anything was skipped, left or unused, and what
// read_weights throws.
InitialWeights load_initial_weights(const ModelConfig& config, Model& model);

}  // namespace trainer
