#pragma once
// Decoded data sets, held in memory as tensors.
#include <torch/torch.h>

#include "config/experiment_config.h"
#include "data/data_info.h"

namespace trainer {

struct TensorDataset {
  torch::Tensor inputs;  // [N, ...] float32 or int64 tokens
  torch::Tensor labels;  // [N] int64
  int64_t size() const { return labels.defined() ? labels.size(0) : 0; }
};

struct DataSplits {
  TensorDataset train;
  TensorDataset valid;
  DataInfo info;
};

// Loads the data set named in `config` (reuters, fashion_mnist, mnist,
// synthetic). Throws DataError naming the file and what to do.
DataSplits load_dataset(const DataConfig& config, int64_t seed);

}  // namespace trainer
