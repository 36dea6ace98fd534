// The fused CUDA kernels' own sources, run on the CPU by the CUDA emulation
// (tests/cuda_emulation/), against the CPU loops they must agree with: the
// thread layouts, block and warp reductions, dropout groups and padded
// scatters and gathers get checked on every build, not only where a GPU is.
// What the emulation cannot check (speed, races, device rounding) is for the
// GPU tests in norm_chain_test.cpp and reflection_pad_test.cpp.
// torch before Catch: c10 defines a CHECK macro of its own (a fatal log),
// which Catch's must replace, as in the tests that share the torch PCH.
#include <torch/torch.h>

#include <catch2/catch.hpp>

#include <sstream>

#include "fused/nadam_step.h"
#include "fused/norm_chain_backend.h"
#include "fused/reflection_pad_backend.h"
#include "optim/nadam.h"
#include "philox_counter.h"

namespace trainer::fused {
namespace {

struct ChainCase {
  std::vector<int64_t> shape;
  bool relu = true, affine = true;
  double dropout = 0;
  std::array<int64_t, 4> pad{};
  torch::MemoryFormat layout = torch::MemoryFormat::Contiguous;
  torch::Dtype dtype = torch::kFloat;
  double mean = 0.5, deviation = 3;  // of the input
  // The input's data one element past an allocation's start: no longer
  // aligned for the kernels' packed accesses.
  bool misaligned = false;
  double output_tolerance = 0;  // 0: 1e-4 for float, 0.02 for bf16
};

std::string describe(const ChainCase& c) {
  std::ostringstream out;
  out << "shape " << c.shape << " relu " << c.relu << " affine " << c.affine << " dropout " << c.dropout << " pad "
      << c.pad[0] << c.pad[1] << c.pad[2] << c.pad[3] << " layout " << c.layout << " dtype " << c.dtype << " mean "
      << c.mean << " deviation " << c.deviation << " misaligned " << c.misaligned;
  return out.str();
}

bool close(const torch::Tensor& a, const torch::Tensor& b, double tolerance) {
  return torch::allclose(a.to(torch::kFloat), b.to(torch::kFloat), tolerance, tolerance);
}

// Forward and backward by the kernels and by the CPU loops, on the same
// input, upstream gradient and dropout draws.
void check_chain(const ChainCase& c) {
  INFO(describe(c));
  torch::manual_seed(11);
  const auto to = torch::TensorOptions().dtype(c.dtype);
  torch::Tensor x = (torch::randn(c.shape) * c.deviation + c.mean).to(to).contiguous(c.layout);
  if (c.misaligned) {
    const torch::Tensor storage = torch::empty({x.numel() + 1}, to);
    torch::Tensor shifted = storage.narrow(0, 1, x.numel()).as_strided(x.sizes(), x.strides());
    shifted.copy_(x);
    x = shifted;
    REQUIRE(reinterpret_cast<uintptr_t>(x.data_ptr()) % 8 != 0);
  }
  torch::Tensor gamma, beta;
  if (c.affine) {
    gamma = torch::rand({c.shape[1]}) + 0.5;
    beta = torch::randn({c.shape[1]}) * 0.3;
  }
  NormChainOptions options;
  options.relu = c.relu;
  options.dropout = c.dropout;
  options.pad = c.pad;
  const torch::Tensor upstream =
      torch::randn({c.shape[0], c.shape[1], c.shape[2] + c.pad[0] + c.pad[1], c.shape[3] + c.pad[2] + c.pad[3]})
          .to(to)
          .contiguous(c.layout);

  DropoutDraws cpu_draws, kernel_draws;
  const ChainForward reference = chain_forward_cpu(x, gamma, beta, options, c.dropout, cpu_draws);
  trainer_emulation::philox_counter() = {cpu_draws.words[0], cpu_draws.words[1]};
  const ChainForward kernels = chain_forward_cuda(x, gamma, beta, options, c.dropout, kernel_draws);

  const double tolerance = c.output_tolerance > 0 ? c.output_tolerance : c.dtype == torch::kFloat ? 1e-4 : 0.02;
  REQUIRE(kernels.output.sizes() == reference.output.sizes());
  CHECK(is_channels_last(kernels.output) == (c.layout == torch::MemoryFormat::ChannelsLast));
  CHECK(close(kernels.mean, reference.mean, 1e-5));
  CHECK(close(kernels.rstd, reference.rstd, 1e-4));
  CHECK(close(kernels.output, reference.output, tolerance));
  // The same elements dropped (and zeroed by ReLU): where one is zero, so is the other.
  CHECK(torch::equal(kernels.output.eq(0), reference.output.eq(0)));

  const ChainBackward want = chain_backward_cpu(upstream, x, gamma, beta, reference, options, c.dropout, cpu_draws);
  const ChainBackward got = chain_backward_cuda(upstream, x, gamma, beta, kernels, options, c.dropout, kernel_draws);
  CHECK(is_channels_last(got.grad_input) == (c.layout == torch::MemoryFormat::ChannelsLast));
  CHECK(close(got.grad_input, want.grad_input, c.dtype == torch::kFloat ? 1e-4 : 0.05));
  CHECK(torch::allclose(got.grad_beta_parts, want.grad_beta_parts, 1e-3, 1e-3));
  CHECK(torch::allclose(got.grad_gamma_parts, want.grad_gamma_parts, 1e-3, 1e-3));
}

}  // namespace

TEST_CASE("emulated CUDA: the norm chain's kernels equal its CPU loops, small planes, every padding, dropout",
          "[fused][emulated]") {
  for (auto layout : {torch::MemoryFormat::Contiguous, torch::MemoryFormat::ChannelsLast})
    for (double dropout : {0.0, 0.5})
      for (bool relu : {false, true})
        for (std::array<int64_t, 4> pad : {std::array<int64_t, 4>{0, 0, 0, 0}, {1, 1, 1, 1}, {3, 3, 3, 3}, {2, 1, 0, 3}}) {
          ChainCase c;
          // Widths that are not multiples of four: dropout groups that
          // straddle rows and Philox blocks.
          c.shape = {2, 3, 7, 9};
          c.relu = relu;
          c.dropout = dropout;
          c.pad = pad;
          c.layout = layout;
          check_chain(c);
        }
}

TEST_CASE("emulated CUDA: the norm chain's kernels at DeblurGAN's sizes, every block size, bf16, partial tiles",
          "[fused][emulated]") {
  for (auto layout : {torch::MemoryFormat::Contiguous, torch::MemoryFormat::ChannelsLast})
    for (double dropout : {0.0, 0.5})
      for (int64_t side : {16, 64, 128}) {
        ChainCase c;
        // 72 channels: two whole tiles of 32 and a partial one.
        c.shape = {2, side == 64 ? 72 : 8, side, side};
        c.dropout = dropout;
        c.pad = {3, 3, 3, 3};
        c.layout = layout;
        check_chain(c);
        c.dtype = torch::kBFloat16;
        c.affine = false;
        c.pad = {1, 1, 1, 1};
        check_chain(c);
      }
}

TEST_CASE("emulated CUDA: the norm chain's statistics keep float precision far from zero, and unaligned inputs work",
          "[fused][emulated]") {
  for (auto layout : {torch::MemoryFormat::Contiguous, torch::MemoryFormat::ChannelsLast}) {
    ChainCase c;
    c.shape = {2, 8, 64, 64};
    c.layout = layout;
    c.pad = {1, 1, 1, 1};
    // A plane's mean 300 deviations from zero: sums of squares taken about
    // zero would lose five of float's seven digits of the variance (1 / std
    // is held to four). Float holds 300 to 3e-5, and a mean a few of those
    // off moves every output as much: outputs held to 1e-3, and no ReLU,
    // whose verdicts on outputs that near zero could go either way.
    c.mean = 300;
    c.deviation = 1;
    c.output_tolerance = 1e-3;
    c.relu = false;
    check_chain(c);
    // Packed accesses need aligned data: these take the one-element path.
    c.mean = 0.5;
    c.deviation = 3;
    c.output_tolerance = 0;
    c.relu = true;
    c.dropout = 0.5;
    c.misaligned = true;
    check_chain(c);
    c.dtype = torch::kBFloat16;
    check_chain(c);
  }
}

TEST_CASE("emulated CUDA: the layout-keeping reflection padding's kernels equal LibTorch's", "[fused][emulated]") {
  namespace F = torch::nn::functional;
  // 40 channels: packs of four (two for double); 3: one channel a thread.
  for (const auto& [channels, dtype] : {std::pair<int64_t, torch::Dtype>{40, torch::kFloat}, {3, torch::kFloat},
                                        {40, torch::kBFloat16}, {40, torch::kDouble}})
    for (const std::array<int64_t, 4>& pad :
         {std::array<int64_t, 4>{1, 1, 1, 1}, {3, 3, 3, 3}, {2, 0, 0, 3}, {4, 1, 5, 0}}) {
      INFO("pad " << pad[0] << pad[1] << pad[2] << pad[3] << " channels " << channels << " dtype " << dtype);
      torch::manual_seed(7);
      const torch::Tensor x = torch::randn({2, channels, 5, 6}).to(dtype).contiguous(torch::MemoryFormat::ChannelsLast);
      const torch::Tensor ours = reflection_pad_forward_cuda(x, pad);
      const auto options = F::PadFuncOptions({pad[2], pad[3], pad[0], pad[1]}).mode(torch::kReflect);
      // In double: LibTorch 1.13 pads no bf16 on the CPU. A copy either way.
      const torch::Tensor padded = F::pad(x.to(torch::kDouble).contiguous(), options).to(dtype);
      CHECK(torch::equal(ours, padded));
      CHECK(is_channels_last(ours));
      // The reference gradient summed in double: LibTorch's bf16 backward
      // rounds after each of the up to nine terms, the kernels once.
      const torch::Tensor upstream = torch::randn(ours.sizes()).to(dtype);
      const torch::Tensor input = x.to(torch::kDouble).contiguous().requires_grad_();
      (F::pad(input, options) * upstream.to(torch::kDouble)).sum().backward();
      const torch::Tensor gradient = reflection_pad_backward_cuda(upstream, x.sizes(), pad);
      CHECK(gradient.scalar_type() == dtype);
      const double tolerance = dtype == torch::kBFloat16 ? 1e-2 : 1e-5;
      CHECK(torch::allclose(gradient.to(torch::kDouble), input.grad(), tolerance, tolerance));
    }
}

TEST_CASE("emulated CUDA: the NAdam kernels step as trainer's NAdam does, skipped steps changing nothing",
          "[fused][emulated]") {
  torch::manual_seed(5);
  // The third parameter is larger than the element kernel's grid (8 blocks
  // of 256 threads for each of the emulated device's 4 multiprocessors), so
  // that its threads stride.
  std::vector<torch::Tensor> own{torch::randn({6, 5}), torch::randn({5}), torch::randn({9000})};
  std::vector<torch::Tensor> fused, grads, firsts, seconds;
  for (const auto& p : own) {
    fused.push_back(p.clone());
    grads.push_back(torch::zeros_like(p));
    firsts.push_back(torch::zeros_like(p));
    seconds.push_back(torch::zeros_like(p));
    p.requires_grad_();
  }
  NAdamOptions options(0.01);
  options.weight_decay(0.01);
  NAdam optimizer(own, options);
  const auto count = static_cast<int64_t>(own.size());
  const torch::Tensor steps = torch::zeros({count}, torch::kFloat64);
  const torch::Tensor mu_products = torch::ones({count}, torch::kFloat32);
  const torch::Tensor coefficients = torch::empty({count, 3}, torch::kFloat64);
  const NadamHyper hyper{options.beta1(), options.beta2(), options.eps(), options.weight_decay(),
                         options.momentum_decay()};
  for (int t = 1; t <= 20; ++t) {
    const double rate = 0.01 * (1 + std::cos(t * 0.2)) / 2 + 1e-4;
    const bool skipped = t % 5 == 0;
    for (size_t i = 0; i < own.size(); ++i) {
      const torch::Tensor g = torch::randn(own[i].sizes());
      own[i].mutable_grad() = g;
      grads[i].copy_(g);
    }
    std::vector<torch::Tensor> before;
    for (const auto& p : fused) before.push_back(p.clone());
    nadam_step_cuda(fused, grads, firsts, seconds, steps, mu_products, coefficients,
                    torch::tensor(rate, torch::kFloat64), hyper, torch::tensor(skipped ? 1.0 : 0.0, torch::kFloat64));
    if (skipped) {
      for (size_t i = 0; i < fused.size(); ++i) CHECK(torch::equal(before[i], fused[i]));
      continue;
    }
    for (auto& group : optimizer.param_groups()) group.options().set_lr(rate);
    optimizer.step();
  }
  CHECK(steps.equal(torch::full({count}, 16.0, torch::kFloat64)));
  for (size_t i = 0; i < own.size(); ++i) {
    INFO("parameter " << i);
    CHECK(torch::allclose(fused[i], own[i].detach(), 1e-5, 1e-6));
  }
}

}  // namespace trainer::fused
