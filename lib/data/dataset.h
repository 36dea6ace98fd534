#pragma once
// Decoded data sets, held in memory as tensors.
#include <torch/torch.h>

#include <memory>
#include <optional>
#include <utility>

#include "spec/data_info.h"
#include "spec/experiment_config.h"

namespace trainer {

// Samples made as their batch is assembled, not held as rows: image patches
// cut from cached images, augmented, degraded. Called from several loader
// threads at once.
class SampleSource {
 public:
  virtual ~SampleSource() = default;
  // Inputs and targets of samples `ids`, stacked. `epoch` (from 1) seeds a
  // training sample's random choices, so that a resumed epoch repeats them;
  // 0 asks for the fixed samples validation sees.
  virtual std::pair<torch::Tensor, torch::Tensor> assemble(const int64_t* ids, int64_t count, int64_t epoch) const = 0;
};

struct TensorDataset {
  torch::Tensor inputs;  // [N, ...] float32 or int64 tokens; with a source, the sample ids
  torch::Tensor labels;  // [N] int64 or the target images; with a source, the sample ids
  std::shared_ptr<const SampleSource> source = nullptr;  // makes the samples, when set
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
