#pragma once
// Decoded data sets, held in memory as tensors.
#include <torch/torch.h>

#include <optional>

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

// What load_dataset's `info` will say, found without reading the samples:
// from the config (synthetic; reuters with a sequence_length, its 46 topics
// and, where num_words is 0, a stand-in vocabulary) or an IDX file's header.
// nullopt where only loading tells (reuters padded to its longest newswire)
// or the files cannot be read (loading then says why). Never downloads.
// train_size and valid_size stay 0.
std::optional<DataInfo> preview_dataset(const DataConfig& config);

}  // namespace trainer
