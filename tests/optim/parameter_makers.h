#pragma once
// Parameters for the tests that compare an optimizer's multi-tensor step
// with its tensor operations: each takes the parameter's sizes.
#include <torch/torch.h>

#include <vector>

namespace trainer::testing {

// What the CPU loops do not take: float64, and for two dimensions a float32
// view of every other column (not dense).
inline torch::Tensor off_the_cpu_loops(const std::vector<int64_t>& sizes) {
  if (sizes.size() == 2) return torch::randn({sizes[0], 2 * sizes[1]}).slice(1, 0, 2 * sizes[1], 2);
  return torch::randn(sizes, torch::kFloat64);
}

inline torch::Tensor on_the_gpu(const std::vector<int64_t>& sizes) {
  return torch::randn(sizes, torch::TensorOptions().device(torch::kCUDA));
}

}  // namespace trainer::testing
