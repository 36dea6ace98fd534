#pragma once
// The inputs `trainer predict` gives a model that reads rows, not image
// files: a table's rows (tabular_inputs.h) or token sequences
// (sequence_inputs.h), encoded as the run's training data was, and what
// names each in the output.
#include <torch/torch.h>

#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

namespace trainer {

struct RowInputs {
  torch::Tensor inputs;  // [N, ...]: float32 features or int64 token ids
  // One object per row, which the output line starts with: {"line": 12} (a
  // CSV or JSON-lines file's line), {"row": 3} (a numpy array's row, from
  // 0) or {"file": "news/a.txt"}.
  std::vector<nlohmann::ordered_json> places;
  int64_t skipped = 0;  // rows or files left out under data.on_bad_file: skip
};

}  // namespace trainer
