#pragma once
// The samples of a data set whose samples are made by a SampleSource (the
// image-to-image data sets), all of them, as the loader would assemble them.
#include <torch/torch.h>

#include <utility>
#include <vector>

#include "data/dataset.h"

namespace trainer::testing {

// Inputs and targets of every sample of `split`, in order; `epoch` 0: the
// fixed samples (validation's), else a training epoch's.
// Inputs the step's device makes (data.degrade.on_device) are made here, on
// the CPU.
inline std::pair<torch::Tensor, torch::Tensor> all_samples(const TensorDataset& split, int64_t epoch = 0) {
  const torch::Tensor ids = split.inputs.contiguous();
  const SampleBatch batch = split.source->assemble(ids.data_ptr<int64_t>(), ids.size(0), epoch);
  return {batch.finished_inputs(), batch.targets};
}

}  // namespace trainer::testing
