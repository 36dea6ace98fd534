// The fused norm chain's CUDA kernels: one thread block per (sample,
// channel) plane, each thread loading a batch of elements before it uses
// any (norm_chain_cuda_common.cuh says why). The forward takes the plane's
// mean and variance (shifted sums, merged across the block), then
// normalises each element and writes it
// to every padded position that reflects it; the backward gathers each
// element's gradient from the padded positions that read it, recomputes
// the ReLU and dropout masks, sums the two gradient statistics across the
// block, and writes the input's gradient. Channels-last inputs go to the
// kernels of norm_chain_cuda_channels_last.cu, whose reads a plane per
// block could not coalesce.
#include <ATen/ATen.h>
#include <ATen/Dispatch.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>

#include "fused/norm_chain_cuda_channels_last.h"
#include "fused/norm_chain_cuda_common.cuh"
#include "fused/padded_reflection.cuh"

namespace trainer::fused {
namespace {

constexpr int kMaxWarps = 32;

struct Shape {
  int64_t channels, height, width, top, bottom, left, right;
  __host__ __device__ int64_t elements() const { return height * width; }
  __host__ __device__ int64_t padded_height() const { return height + top + bottom; }
  __host__ __device__ int64_t padded_width() const { return width + left + right; }
};

__device__ Welford shuffle_down(const Welford& w, int delta) {
  Welford o{0, 0, 0};
  o.count = __shfl_down_sync(0xffffffffu, w.count, delta);
  o.mean = __shfl_down_sync(0xffffffffu, w.mean, delta);
  o.m2 = __shfl_down_sync(0xffffffffu, w.m2, delta);
  return o;
}

// The block's combined statistics, in every thread.
__device__ Welford block_welford(Welford w) {
  __shared__ Welford partial[kMaxWarps];
  __shared__ Welford total;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  for (int delta = 16; delta > 0; delta /= 2) w.merge(shuffle_down(w, delta));
  if (lane == 0) partial[warp] = w;
  __syncthreads();
  if (warp == 0) {
    Welford v = lane < (blockDim.x + 31) / 32 ? partial[lane] : Welford{0, 0, 0};
    for (int delta = 16; delta > 0; delta /= 2) v.merge(shuffle_down(v, delta));
    if (lane == 0) total = v;
  }
  __syncthreads();
  return total;
}

// The block's sums of a and b, in every thread.
__device__ float2 block_sum(float2 s) {
  __shared__ float2 partial[kMaxWarps];
  __shared__ float2 total;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  for (int delta = 16; delta > 0; delta /= 2) {
    s.x += __shfl_down_sync(0xffffffffu, s.x, delta);
    s.y += __shfl_down_sync(0xffffffffu, s.y, delta);
  }
  if (lane == 0) partial[warp] = s;
  __syncthreads();
  if (warp == 0) {
    float2 v = lane < (blockDim.x + 31) / 32 ? partial[lane] : make_float2(0, 0);
    for (int delta = 16; delta > 0; delta /= 2) {
      v.x += __shfl_down_sync(0xffffffffu, v.x, delta);
      v.y += __shfl_down_sync(0xffffffffu, v.y, delta);
    }
    if (lane == 0) total = v;
  }
  __syncthreads();
  return total;
}

// What every element of a plane shares: its channel's scale and shift, and
// the dropout draws' seed and offset.
struct PlaneConstants {
  float gamma, beta;
  Draw draw;
};

__device__ PlaneConstants plane_constants(int64_t plane, const Shape& s, const float* gamma, const float* beta,
                                          const Tail& tail) {
  const int64_t c = plane % s.channels;
  return {gamma ? gamma[c] : 1.0f, beta ? beta[c] : 0.0f, draw_of(tail)};
}

// Takes this thread's elements of a plane (its first element's NCHW index
// `plane_first`) kBatch at a time: load(e) for each element e of a batch,
// then use(e, kept, loaded) for each, `kept` being dropout's verdict on e,
// so that a batch's loads are in flight together. Elements come in groups
// of group_size() neighbours (with dropout, four: one Philox evaluation
// serves them), the groups spread over the block's threads; without
// dropout neighbouring threads take neighbouring elements.
template <typename Load, typename Use>
__device__ void for_my_batches(int elements, int64_t plane_first, const Tail& tail, const Draw& draw, Load&& load,
                               Use&& use) {
  const int group = group_size(tail), shift = group == 4 ? 2 : 0, stride = static_cast<int>(blockDim.x) * group;
  using Loaded = decltype(load(0));
  // Slot q of a batch: element base + (q / group) * stride + q % group.
  for (int base = static_cast<int>(threadIdx.x) * group; base < elements; base += (kBatch / group) * stride) {
    Loaded loaded[kBatch];
#pragma unroll
    for (int q = 0; q < kBatch; ++q) {
      const int e = base + (q >> shift) * stride + (q & (group - 1));
      if (e < elements) loaded[q] = load(e);
    }
    unsigned kept = 0;
#pragma unroll
    for (int q = 0; q < kBatch; ++q) {
      const int e = base + (q >> shift) * stride + (q & (group - 1)), j = q & (group - 1);
      if (e >= elements) break;
      if (j == 0) kept = group_kept(tail, draw, plane_first + e, min(group, elements - e));
      use(e, ((kept >> j) & 1u) != 0, loaded[q]);
    }
  }
}

template <typename T>
__global__ void chain_forward_kernel(const T* __restrict__ x, const float* __restrict__ gamma,
                                     const float* __restrict__ beta, T* __restrict__ y, float* __restrict__ means,
                                     float* __restrict__ rstds, Shape s, float eps, Tail tail) {
  const int64_t plane = blockIdx.x;
  // Within a plane 32-bit indices (norm_chain_unfit turns larger planes
  // away): a 64-bit division is many instructions on a GPU, a 32-bit one few.
  const int elements = static_cast<int>(s.elements());
  const T* xp = x + plane * elements;
  const int threads = static_cast<int>(blockDim.x);
  ShiftedSums mine{static_cast<int>(threadIdx.x) < elements ? static_cast<float>(xp[threadIdx.x]) : 0.0f, 0, 0, 0};
  for (int base = static_cast<int>(threadIdx.x); base < elements; base += kBatch * threads)
    mine.add_batch([&](int k) { return base + k * threads < elements; },
                   [&](int k) { return static_cast<float>(xp[base + k * threads]); });
  const Welford stats = block_welford(mine.welford());
  const float mean = stats.mean, rstd = rsqrtf(stats.m2 / stats.count + eps);
  if (threadIdx.x == 0) {
    means[plane] = mean;
    rstds[plane] = rstd;
  }
  const PlaneConstants k = plane_constants(plane, s, gamma, beta, tail);
  const int width = static_cast<int>(s.width), padded_width = static_cast<int>(s.padded_width());
  T* yp = y + plane * s.padded_height() * s.padded_width();
  for_my_batches(
      elements, plane * elements, tail, k.draw, [&](int e) { return static_cast<float>(xp[e]); },
      [&](int e, bool kept, float xv) {
        const int h = e / width, w = e - h * width;
        const T v = static_cast<T>(apply_tail(normalised(xv, mean, rstd, k.gamma, k.beta), tail, kept));
        scatter_padded(yp, s, h, w, v, [&](int row, int col) { return row * padded_width + col; });
      });
}

// An element's input and the gradient of its padded output positions,
// summed: what the backward's two passes load.
struct InputAndGradient {
  float x, g;
};

template <typename T>
__global__ void chain_backward_kernel(const T* __restrict__ grad, const T* __restrict__ x,
                                      const float* __restrict__ gamma, const float* __restrict__ beta,
                                      const float* __restrict__ means, const float* __restrict__ rstds,
                                      T* __restrict__ dx, float* __restrict__ dgamma, float* __restrict__ dbeta,
                                      Shape s, Tail tail) {
  const int64_t plane = blockIdx.x;
  const int elements = static_cast<int>(s.elements()), width = static_cast<int>(s.width);
  const int padded_width = static_cast<int>(s.padded_width());
  const T* xp = x + plane * elements;
  const T* gp = grad + plane * s.padded_height() * s.padded_width();
  const float mean = means[plane], rstd = rstds[plane];
  const PlaneConstants k = plane_constants(plane, s, gamma, beta, tail);
  const auto load = [&](int e) {
    const int h = e / width, w = e - h * width;
    return InputAndGradient{static_cast<float>(xp[e]),
                            gather_padded<float>(gp, s, h, w, [&](int row, int col) { return row * padded_width + col; })};
  };
  // The gradient of the normalised value, through the tail.
  const auto normalised_gradient = [&](const InputAndGradient& in, bool kept) {
    return tail_gradient(in.g, normalised(in.x, mean, rstd, k.gamma, k.beta), tail, kept);
  };
  float2 sums = make_float2(0, 0);
  for_my_batches(elements, plane * elements, tail, k.draw, load, [&](int, bool kept, const InputAndGradient& in) {
    const float gy = normalised_gradient(in, kept);
    sums.x += gy;
    sums.y += gy * ((in.x - mean) * rstd);
  });
  sums = block_sum(sums);
  if (threadIdx.x == 0) {
    dgamma[plane] = sums.y;
    dbeta[plane] = sums.x;
  }
  const float mean_gy = sums.x / elements, mean_gy_xhat = sums.y / elements, scale = k.gamma * rstd;
  for_my_batches(elements, plane * elements, tail, k.draw, load, [&](int e, bool kept, const InputAndGradient& in) {
    const float gy = normalised_gradient(in, kept);
    dx[plane * elements + e] = static_cast<T>(scale * (gy - mean_gy - ((in.x - mean) * rstd) * mean_gy_xhat));
  });
}

// Threads a block: enough for the plane, at most 512.
int block_threads(int64_t elements) {
  if (elements <= 1024) return 128;
  if (elements <= 8192) return 256;
  return 512;
}

Shape shape_of(const at::Tensor& x, const NormChainOptions& options) {
  return {x.size(1), x.size(2), x.size(3), options.pad[0], options.pad[1], options.pad[2], options.pad[3]};
}

}  // namespace

bool cuda_kernels_compiled() { return true; }

ChainForward chain_forward_cuda(const at::Tensor& input, const at::Tensor& gamma, const at::Tensor& beta,
                                const NormChainOptions& options, double dropout, DropoutDraws& draws) {
  const c10::cuda::CUDAGuard guard(input.device());
  if (dropout > 0) take_draws(input.device(), draws);
  if (is_channels_last(input)) return chain_forward_channels_last(input, gamma, beta, options, dropout, draws);
  const at::Tensor x = input.contiguous();
  const Shape s = shape_of(x, options);
  const int64_t planes = x.size(0) * s.channels;
  ChainForward out{at::empty({x.size(0), s.channels, s.padded_height(), s.padded_width()}, x.options()),
                   at::empty({planes}, x.options().dtype(at::kFloat)), at::empty({planes}, x.options().dtype(at::kFloat))};
  const Tail tail = tail_of(options, dropout, draws);
  const int threads = block_threads(s.elements());
  auto stream = at::cuda::getCurrentCUDAStream();
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, x.scalar_type(), "norm_chain_forward_cuda", [&] {
    chain_forward_kernel<scalar_t><<<static_cast<unsigned>(planes), threads, 0, stream>>>(
        x.data_ptr<scalar_t>(), data_or_null(gamma), data_or_null(beta), out.output.data_ptr<scalar_t>(),
        out.mean.data_ptr<float>(), out.rstd.data_ptr<float>(), s, static_cast<float>(options.eps), tail);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
  });
  return out;
}

ChainBackward chain_backward_cuda(const at::Tensor& grad_output, const at::Tensor& input, const at::Tensor& gamma,
                                  const at::Tensor& beta, const ChainForward& saved, const NormChainOptions& options,
                                  double dropout, const DropoutDraws& draws) {
  const c10::cuda::CUDAGuard guard(input.device());
  if (is_channels_last(input))
    return chain_backward_channels_last(grad_output, input, gamma, beta, saved, options, dropout, draws);
  const at::Tensor x = input.contiguous(), grad = grad_output.contiguous().to(x.scalar_type());
  const Shape s = shape_of(x, options);
  const int64_t planes = x.size(0) * s.channels;
  ChainBackward out{at::empty_like(x), at::empty({x.size(0), s.channels}, x.options().dtype(at::kFloat)),
                    at::empty({x.size(0), s.channels}, x.options().dtype(at::kFloat))};
  const Tail tail = tail_of(options, dropout, draws);
  const int threads = block_threads(s.elements());
  auto stream = at::cuda::getCurrentCUDAStream();
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, x.scalar_type(), "norm_chain_backward_cuda", [&] {
    chain_backward_kernel<scalar_t><<<static_cast<unsigned>(planes), threads, 0, stream>>>(
        grad.data_ptr<scalar_t>(), x.data_ptr<scalar_t>(), data_or_null(gamma), data_or_null(beta),
        saved.mean.data_ptr<float>(), saved.rstd.data_ptr<float>(), out.grad_input.data_ptr<scalar_t>(),
        out.grad_gamma_parts.data_ptr<float>(), out.grad_beta_parts.data_ptr<float>(), s, tail);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
  });
  return out;
}

}  // namespace trainer::fused
