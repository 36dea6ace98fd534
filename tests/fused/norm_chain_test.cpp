// The fused norm chain against LibTorch's unfused layers: on the CPU its
// reference loops (the kernels' element arithmetic), on a GPU the CUDA
// kernels (skipped without one).
#include <catch2/catch.hpp>

#include <torch/torch.h>

#include "device/cuda_graph.h"
#include "fused/norm_chain.h"

namespace trainer {
namespace {

namespace F = torch::nn::functional;

struct Case {
  std::vector<int64_t> shape;
  NormChainOptions options;
  bool affine = true;
};

// The layers one by one: instance norm, ReLU, dropout by `mask` (kept = 1),
// reflection padding.
torch::Tensor unfused(const torch::Tensor& x, const torch::Tensor& weight, const torch::Tensor& bias,
                      const NormChainOptions& options, const torch::Tensor& mask) {
  torch::Tensor y = torch::instance_norm(x, weight, bias, {}, {}, true, 0.1, options.eps, false);
  if (options.relu) y = torch::relu(y);
  if (mask.defined()) y = y * mask / (1 - options.dropout);
  const auto& p = options.pad;
  return F::pad(y, F::PadFuncOptions({p[2], p[3], p[0], p[1]}).mode(torch::kReflect));
}

struct Inputs {
  torch::Tensor x, weight, bias, upstream;
};

// `layout`: the input's memory layout (the same values either way).
Inputs inputs_for(const Case& c, const torch::TensorOptions& to,
                  torch::MemoryFormat layout = torch::MemoryFormat::Contiguous) {
  torch::manual_seed(3);
  Inputs in;
  in.x = (torch::randn(c.shape, to) * 3 + 0.5).contiguous(layout).requires_grad_();
  if (c.affine) {
    in.weight = (torch::rand({c.shape[1]}, to.dtype(torch::kFloat)) + 0.5).requires_grad_();
    in.bias = (torch::randn({c.shape[1]}, to.dtype(torch::kFloat)) * 0.3).requires_grad_();
  }
  const auto& p = c.options.pad;
  in.upstream = torch::randn({c.shape[0], c.shape[1], c.shape[2] + p[0] + p[1], c.shape[3] + p[2] + p[3]}, to);
  return in;
}

struct Result {
  torch::Tensor output, grad_x, grad_weight, grad_bias;
};

Result run(const Inputs& in, const std::function<torch::Tensor()>& forward) {
  for (auto t : {in.x, in.weight, in.bias})
    if (t.defined() && t.grad().defined()) t.mutable_grad().reset();
  Result r;
  r.output = forward();
  (r.output.to(torch::kFloat) * in.upstream.to(torch::kFloat)).sum().backward();
  r.grad_x = in.x.grad().clone();
  if (in.weight.defined()) {
    r.grad_weight = in.weight.grad().clone();
    r.grad_bias = in.bias.grad().clone();
  }
  return r;
}

void check_close(const Result& a, const Result& b, double tolerance) {
  REQUIRE(a.output.sizes() == b.output.sizes());
  CHECK(torch::allclose(a.output.to(torch::kFloat), b.output.to(torch::kFloat), tolerance, tolerance));
  CHECK(torch::allclose(a.grad_x.to(torch::kFloat), b.grad_x.to(torch::kFloat), tolerance, tolerance));
  if (a.grad_weight.defined()) {
    CHECK(torch::allclose(a.grad_weight, b.grad_weight, tolerance, tolerance * 10));
    CHECK(torch::allclose(a.grad_bias, b.grad_bias, tolerance, tolerance * 10));
  }
}

// The mask a dropout call draws after `seed`: the chain of a plane of ones
// normalises to zeros, so with bias 1 and no ReLU each output is 1 / keep
// where kept and 0 where dropped.
torch::Tensor drawn_mask(uint64_t seed, const std::vector<int64_t>& shape, double rate, const torch::Device& device,
                         bool cuda) {
  if (cuda) torch::cuda::manual_seed(seed);
  else torch::manual_seed(seed);
  NormChainOptions options;
  options.dropout = rate;
  const auto x = torch::ones(shape, torch::TensorOptions(device));
  const auto bias = torch::ones({shape[1]}, torch::TensorOptions(device));
  return norm_chain(x, torch::zeros_like(bias), bias, options, true).gt(0).to(torch::kFloat);
}

std::vector<Case> cases() {
  std::vector<Case> out;
  for (bool relu : {false, true})
    for (std::array<int64_t, 4> pad : {std::array<int64_t, 4>{0, 0, 0, 0}, {1, 1, 1, 1}, {3, 3, 3, 3}, {2, 1, 0, 3}}) {
      Case c;
      c.shape = {2, 3, 7, 9};
      c.options.relu = relu;
      c.options.pad = pad;
      out.push_back(c);
    }
  Case small;  // padding one short of the input: every element is reflected
  small.shape = {1, 2, 4, 4};
  small.options.relu = true;
  small.options.pad = {3, 3, 3, 3};
  out.push_back(small);
  Case plain;  // no scale and offset, as DeblurGAN's norms
  plain.shape = {2, 4, 5, 6};
  plain.affine = false;
  plain.options.relu = true;
  plain.options.pad = {1, 1, 1, 1};
  out.push_back(plain);
  return out;
}

// Whether `t` is laid out channels-last (and not also NCHW).
bool channels_last(const torch::Tensor& t) {
  return !t.is_contiguous() && t.is_contiguous(torch::MemoryFormat::ChannelsLast);
}

void check_against_unfused(const torch::Device& device, double tolerance,
                           torch::MemoryFormat layout = torch::MemoryFormat::Contiguous) {
  for (const Case& c : cases()) {
    INFO("shape " << c.shape << " relu " << c.options.relu << " pad " << c.options.pad[0] << c.options.pad[1]
                  << c.options.pad[2] << c.options.pad[3] << " affine " << c.affine << " layout " << layout);
    const Inputs in = inputs_for(c, torch::TensorOptions(device), layout);
    const Result fused = run(in, [&] { return norm_chain(in.x, in.weight, in.bias, c.options, true); });
    // The unfused layers on an NCHW copy: LibTorch's CUDA padding returns
    // NCHW whatever it is given.
    const Result plain = run(in, [&] { return unfused(in.x.contiguous(), in.weight, in.bias, c.options, {}); });
    check_close(fused, plain, tolerance);
    // The output and the gradient keep the input's layout.
    CHECK(channels_last(fused.output) == (layout == torch::MemoryFormat::ChannelsLast));
    CHECK(channels_last(fused.grad_x) == (layout == torch::MemoryFormat::ChannelsLast));
  }
}

// Both layouts compute the same values and drop the same elements, the
// gradients too: dropout's draws follow an element's (sample, channel, row,
// column), not its place in memory.
void check_layouts_agree(const torch::Device& device, bool cuda, double tolerance) {
  Case c;
  c.shape = {2, 40, 9, 7};  // more channels than a warp's 32, a partial second tile
  // No ReLU: its mask could differ where a value lies within rounding of
  // zero, and the zeros compared below are the dropped elements alone.
  c.options = {1e-5, false, 0.5, {1, 2, 3, 1}};
  const auto seeded = [&](torch::MemoryFormat layout) {
    const Inputs in = inputs_for(c, torch::TensorOptions(device), layout);
    return run(in, [&] {
      if (cuda) torch::cuda::manual_seed(21);
      else torch::manual_seed(21);
      return norm_chain(in.x, in.weight, in.bias, c.options, true);
    });
  };
  const Result nchw = seeded(torch::MemoryFormat::Contiguous);
  const Result nhwc = seeded(torch::MemoryFormat::ChannelsLast);
  CHECK(channels_last(nhwc.output));
  CHECK(torch::equal(nchw.output.eq(0), nhwc.output.eq(0)));
  check_close(nhwc, nchw, tolerance);
}

// A transposed convolution's output cropped to Keras's `same` size is a view
// whose rows have a stride of their own: the chain takes it, and the
// gradient reaches the uncropped tensor as through the unfused layers.
void check_cropped_view(const torch::Device& device, double tolerance) {
  NormChainOptions options;
  options.relu = true;
  options.pad = {1, 1, 1, 1};
  torch::manual_seed(5);
  const torch::Tensor uncropped = torch::randn({2, 3, 9, 11}, torch::TensorOptions(device)).requires_grad_();
  const torch::Tensor weight = torch::rand({3}, torch::TensorOptions(device)) + 0.5;
  const torch::Tensor bias = torch::randn({3}, torch::TensorOptions(device));
  const torch::Tensor view = uncropped.narrow(2, 0, 8).narrow(3, 0, 10);
  REQUIRE_FALSE(view.is_contiguous());
  CHECK(norm_chain_unfit(view, options).empty());
  const torch::Tensor upstream = torch::randn({2, 3, 10, 12}, torch::TensorOptions(device));
  const auto output_and_gradient = [&](const torch::Tensor& y) {
    uncropped.mutable_grad() = torch::Tensor();
    (y * upstream).sum().backward();
    return std::make_pair(y.detach(), uncropped.grad().clone());
  };
  const auto [fused, fused_gradient] = output_and_gradient(norm_chain(view, weight, bias, options, true));
  const auto [plain, plain_gradient] = output_and_gradient(unfused(view, weight, bias, options, {}));
  CHECK(torch::allclose(fused, plain, tolerance, tolerance));
  CHECK(torch::allclose(fused_gradient, plain_gradient, tolerance, tolerance));
  // The cropped rows and columns get no gradient.
  CHECK(fused_gradient.narrow(2, 8, 1).abs().max().item<double>() == 0);
  CHECK(fused_gradient.narrow(3, 10, 1).abs().max().item<double>() == 0);
}

void check_dropout_against_unfused(const torch::Device& device, bool cuda) {
  Case c;
  c.shape = {3, 4, 16, 12};
  c.options = {1e-5, true, 0.5, {1, 1, 2, 2}};
  const torch::Tensor mask = drawn_mask(11, c.shape, 0.5, device, cuda);
  // About half kept; dropout draws one number an element, not a plane.
  CHECK(mask.mean().item<double>() == Approx(0.5).margin(0.03));
  CHECK(mask.sum({2, 3}).min().item<double>() > 0);
  const Inputs in = inputs_for(c, torch::TensorOptions(device));
  const Result fused = run(in, [&] {
    if (cuda) torch::cuda::manual_seed(11);
    else torch::manual_seed(11);
    return norm_chain(in.x, in.weight, in.bias, c.options, true);
  });
  const Result plain = run(in, [&] { return unfused(in.x, in.weight, in.bias, c.options, mask); });
  check_close(fused, plain, 1e-4);
  // A second call draws anew.
  CHECK_FALSE(torch::equal(drawn_mask(12, c.shape, 0.5, device, cuda), mask));
  // Evaluation drops nothing.
  torch::NoGradGuard no_grad;
  CHECK(torch::allclose(norm_chain(in.x, in.weight, in.bias, c.options, false),
                        unfused(in.x, in.weight, in.bias, c.options, torch::ones_like(mask) * 0.5), 1e-4, 1e-4));
}

}  // namespace

TEST_CASE("the fused norm chain's CPU loops equal instance norm, ReLU and reflection padding, values and gradients",
          "[fused]") {
  check_against_unfused(torch::kCPU, 1e-4);
  check_cropped_view(torch::kCPU, 1e-4);
}

TEST_CASE("the fused norm chain takes channels-last inputs: the unfused layers' values and gradients, its layout kept",
          "[fused]") {
  check_against_unfused(torch::kCPU, 1e-4, torch::MemoryFormat::ChannelsLast);
  check_layouts_agree(torch::kCPU, false, 1e-4);
  // A cropped channels-last view (a transposed convolution's `same` output)
  // is copied channels-last, not to NCHW.
  NormChainOptions options;
  options.pad = {1, 1, 1, 1};
  const torch::Tensor view =
      torch::randn({2, 5, 9, 9}).contiguous(torch::MemoryFormat::ChannelsLast).narrow(2, 0, 8).narrow(3, 0, 8);
  REQUIRE_FALSE(view.is_contiguous(torch::MemoryFormat::ChannelsLast));
  torch::NoGradGuard no_grad;
  const torch::Tensor out = norm_chain(view, {}, {}, options, true);
  CHECK(channels_last(out));
  CHECK(torch::allclose(out, unfused(view.contiguous(), {}, {}, options, {}), 1e-4, 1e-4));
}

TEST_CASE("the fused norm chain's dropout: the same mask forward and backward, the unfused chain's values", "[fused]") {
  check_dropout_against_unfused(torch::kCPU, false);
}

TEST_CASE("the fused norm chain on bf16 inputs with float32 parameters: close to float32, bf16 out", "[fused]") {
  Case c;
  c.shape = {2, 3, 8, 8};
  c.options.relu = true;
  c.options.pad = {1, 1, 1, 1};
  const Inputs in = inputs_for(c, torch::TensorOptions());
  const torch::Tensor half = norm_chain(in.x.detach().to(torch::kBFloat16), in.weight, in.bias, c.options, true);
  CHECK(half.scalar_type() == torch::kBFloat16);
  torch::NoGradGuard no_grad;
  CHECK(torch::allclose(half.to(torch::kFloat), unfused(in.x, in.weight, in.bias, c.options, {}), 0.03, 0.03));
}

TEST_CASE("the fused norm chain says which inputs it cannot take", "[fused]") {
  NormChainOptions options;
  CHECK(norm_chain_unfit(torch::zeros({2, 3, 4, 4}), options).empty());
  CHECK(norm_chain_unfit(torch::zeros({2, 3, 4}), options).find("3 dimensions") != std::string::npos);
  CHECK(norm_chain_unfit(torch::zeros({2, 3, 4, 4}).contiguous(torch::MemoryFormat::ChannelsLast), options).empty());
  CHECK(norm_chain_unfit(torch::zeros({2, 3, 4, 4}, torch::kInt), options).find("Int") != std::string::npos);
  options.pad = {4, 0, 0, 0};
  CHECK(norm_chain_unfit(torch::zeros({2, 3, 4, 4}), options).find("padding") != std::string::npos);
  CHECK_THROWS_WITH(norm_chain(torch::zeros({2, 3, 4, 4}), {}, {}, options, true),
                    Catch::Contains("padding is not smaller"));
}

TEST_CASE("GPU: the fused norm chain's CUDA kernels equal LibTorch's unfused layers", "[fused][gpu]") {
  if (!torch::cuda::is_available()) {
    WARN("SKIPPED: needs a CUDA GPU");
    return;
  }
  if (!norm_chain_cuda_compiled()) {
    WARN("SKIPPED: this build has no CUDA kernels (configured without nvcc)");
    return;
  }
  check_against_unfused(torch::kCUDA, 1e-4);
  check_against_unfused(torch::kCUDA, 1e-4, torch::MemoryFormat::ChannelsLast);
  check_layouts_agree(torch::kCUDA, true, 1e-4);
  check_cropped_view(torch::kCUDA, 1e-4);
  check_dropout_against_unfused(torch::kCUDA, true);
  // Planes of every block size the kernels pick (128, 256 and 512 threads),
  // with DeblurGAN's shapes, in float32 and bf16; channels-last with one
  // chunk of positions and with many, and channels in whole and partial
  // tiles of 32.
  for (auto layout : {torch::MemoryFormat::Contiguous, torch::MemoryFormat::ChannelsLast})
    for (int64_t side : {16, 64, 256}) {
      Case c;
      c.shape = {2, side == 64 ? 72 : 8, side, side};
      c.options.relu = true;
      c.options.pad = {3, 3, 3, 3};
      INFO("side " << side << " layout " << layout);
      const Inputs in = inputs_for(c, torch::TensorOptions(torch::kCUDA), layout);
      const Result fused = run(in, [&] { return norm_chain(in.x, in.weight, in.bias, c.options, true); });
      const Result plain = run(in, [&] { return unfused(in.x.contiguous(), in.weight, in.bias, c.options, {}); });
      check_close(fused, plain, 2e-4);
      const torch::Tensor half =
          norm_chain(in.x.detach().to(torch::kBFloat16), in.weight, in.bias, c.options, true);
      CHECK(torch::allclose(half.to(torch::kFloat), plain.output, 0.03, 0.03));
    }
}

TEST_CASE("GPU: the fused chain's dropout draws anew at each replay of a CUDA graph", "[fused][gpu]") {
  if (!torch::cuda::is_available() || !norm_chain_cuda_compiled()) {
    WARN("SKIPPED: needs a CUDA GPU and a build with CUDA kernels");
    return;
  }
  NormChainOptions options;
  options.dropout = 0.5;
  for (auto layout : {torch::MemoryFormat::Contiguous, torch::MemoryFormat::ChannelsLast}) {
    INFO("layout " << layout);
    const auto x = torch::ones({2, 4, 32, 32}, torch::kCUDA).contiguous(layout);
    const auto bias = torch::ones({4}, torch::kCUDA);
    norm_chain(x, torch::zeros_like(bias), bias, options, true);  // warm-up
    torch::cuda::synchronize();
    torch::Tensor out;
    CudaGraph graph;
    graph.capture(0, [&] { out = norm_chain(x, torch::zeros_like(bias), bias, options, true); });
    graph.replay();
    const auto first = out.gt(0).clone();
    graph.replay();
    const auto second = out.gt(0).clone();
    CHECK_FALSE(torch::equal(first, second));
    CHECK(first.to(torch::kFloat).mean().item<double>() == Approx(0.5).margin(0.03));
  }
}

}  // namespace trainer
