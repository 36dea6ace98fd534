// The layout-keeping reflection padding against LibTorch's: on the CPU its
// reference loops, on a GPU the CUDA kernels (skipped without one).
#include <catch2/catch.hpp>

#include <torch/torch.h>

#include "fused/norm_chain_backend.h"
#include "fused/reflection_pad.h"

namespace trainer {
namespace {

namespace F = torch::nn::functional;

torch::Tensor libtorch_pad(const torch::Tensor& x, const std::array<int64_t, 4>& p) {
  return F::pad(x.contiguous(), F::PadFuncOptions({p[2], p[3], p[0], p[1]}).mode(torch::kReflect));
}

// Values and gradients against LibTorch's padding of an NCHW copy, and the
// input's layout kept, for every side's padding from none to one short of
// the input.
void check_against_libtorch(const torch::Device& device, torch::MemoryFormat layout) {
  for (const std::array<int64_t, 4>& pad : {std::array<int64_t, 4>{1, 1, 1, 1}, {3, 3, 3, 3}, {2, 0, 0, 3}, {4, 1, 5, 0}}) {
    INFO("pad " << pad[0] << pad[1] << pad[2] << pad[3] << " layout " << layout << " on " << device);
    torch::manual_seed(7);
    const torch::Tensor x = torch::randn({2, 40, 5, 6}, torch::TensorOptions(device)).contiguous(layout).requires_grad_();
    const torch::Tensor ours = reflection_pad(x, pad);
    const torch::Tensor upstream = torch::randn(ours.sizes(), torch::TensorOptions(device));
    (ours * upstream).sum().backward();
    const torch::Tensor our_gradient = x.grad().clone();
    x.mutable_grad() = torch::Tensor();
    const torch::Tensor theirs = libtorch_pad(x, pad);
    (theirs * upstream).sum().backward();
    CHECK(torch::equal(ours, theirs));
    CHECK(torch::allclose(our_gradient, x.grad(), 1e-6, 1e-6));
    CHECK(fused::is_channels_last(ours) == (layout == torch::MemoryFormat::ChannelsLast));
  }
}

}  // namespace

TEST_CASE("the layout-keeping reflection padding's CPU loops equal LibTorch's, values and gradients, either layout",
          "[fused]") {
  check_against_libtorch(torch::kCPU, torch::MemoryFormat::Contiguous);
  check_against_libtorch(torch::kCPU, torch::MemoryFormat::ChannelsLast);
  CHECK(reflection_pad_unfit(torch::zeros({1, 2, 4, 4}), {4, 0, 0, 0}).find("not smaller") != std::string::npos);
  CHECK(reflection_pad_unfit(torch::zeros({2, 4, 4}), {1, 1, 1, 1}).find("3 dimensions") != std::string::npos);
}

TEST_CASE("GPU: the layout-keeping reflection padding's CUDA kernels equal LibTorch's", "[fused][gpu]") {
  if (!torch::cuda::is_available()) {
    WARN("SKIPPED: needs a CUDA GPU");
    return;
  }
  check_against_libtorch(torch::kCUDA, torch::MemoryFormat::ChannelsLast);
  // NCHW stays with LibTorch's padding, which keeps it.
  CHECK_FALSE(reflection_pad_unfit(torch::zeros({1, 2, 4, 4}, torch::kCUDA), {1, 1, 1, 1}).empty());
}

}  // namespace trainer
