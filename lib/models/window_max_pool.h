#pragma once
// Max pools whose windows tile the input (stride = window, no padding), as
// modules: float32 and bf16 CPU inputs go through window_max_kernel's
// one-pass loops (bf16 is what CPU autocast hands a pool after a convolution),
// anything else (other dtypes, GPUs, strided inputs) through LibTorch's pool.
// Values and gradients equal LibTorch's. The 1-D pool holds one byte per
// output for the backward where LibTorch holds an int64. The 2-D pool keeps
// LibTorch's forward (its channels-last kernel was as fast as a plain loop
// could be made here) and replaces its backward, which zero-filled the whole
// input gradient first (a tenth of the Fashion-MNIST step).
#include <torch/torch.h>

namespace trainer {

// The widest window WindowMaxPool1d takes: it keeps each maximum's offset in
// its window in one byte. The 2-D pool keeps LibTorch's int64 indices and has
// no such limit.
constexpr int64_t kWindowMaxPool1dWidest = 256;

class WindowMaxPool1dImpl : public torch::nn::Module {
 public:
  // `window` at most kWindowMaxPool1dWidest.
  explicit WindowMaxPool1dImpl(int64_t window);
  torch::Tensor forward(const torch::Tensor& x);
  void pretty_print(std::ostream& stream) const override;

 private:
  int64_t window_;
};
TORCH_MODULE(WindowMaxPool1d);

class WindowMaxPool2dImpl : public torch::nn::Module {
 public:
  WindowMaxPool2dImpl(int64_t window_h, int64_t window_w);
  torch::Tensor forward(const torch::Tensor& x);
  void pretty_print(std::ostream& stream) const override;

 private:
  int64_t window_h_, window_w_;
};
TORCH_MODULE(WindowMaxPool2d);

// Whether a max pool dimension of `window`, `stride` and `padding` tiles its
// input, as WindowMaxPool1d and WindowMaxPool2d need (LibTorch's floor mode).
bool tiles_without_padding(int64_t window, int64_t stride, int64_t padding);

}  // namespace trainer
