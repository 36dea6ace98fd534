#pragma once
// A 1-D max pool whose windows tile the input (stride = window, no padding),
// as a module: float32 CPU inputs go through window_max_kernel's one-pass
// loops, anything else (other dtypes, GPUs, strided inputs) through
// LibTorch's pool. Values and gradients equal LibTorch's exactly; it holds
// one byte per output for the backward where LibTorch holds an int64.
// 2-D pools stay LibTorch's: its channels-last kernel was as fast as a plain
// loop could be made here.
#include <torch/torch.h>

namespace trainer {

class WindowMaxPool1dImpl : public torch::nn::Module {
 public:
  explicit WindowMaxPool1dImpl(int64_t window);
  torch::Tensor forward(const torch::Tensor& x);
  void pretty_print(std::ostream& stream) const override;

 private:
  int64_t window_;
};
TORCH_MODULE(WindowMaxPool1d);

// Whether a 1-D max pool of `window`, `stride` and `padding` is one that
// WindowMaxPool1d computes (LibTorch's floor mode).
bool tiles_without_padding(int64_t window, int64_t stride, int64_t padding);

}  // namespace trainer
