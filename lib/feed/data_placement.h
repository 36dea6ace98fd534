#pragma once
// data.on_device: whether a GPU run's training and validation tensors move
// to the GPU, where BatchFeed gathers each batch without a copy per step.
#include <torch/torch.h>

#include <string>

#include "data/dataset.h"
#include "spec/enums.h"

namespace trainer {

// The bytes of the tensors a data set holds (its samples, not a source's images).
int64_t held_bytes(const TensorDataset& data);

// Moves `data`'s training and validation tensors to `device` when `wanted`
// says so, or (auto) when together they take at most a quarter of
// `budget_bytes`, the device's memory budget (0: unknown, so they stay).
// Returns the log line saying what was decided and why; on a CPU, empty
// unless `wanted` asked for the device (the line then says it has no effect).
// Data sets that make their samples as batches are assembled stay in host
// memory, said so when `wanted` asked for the device.
std::string place_data(DataSplits& data, DataPlacement wanted, const torch::Device& device, int64_t budget_bytes);

}  // namespace trainer
