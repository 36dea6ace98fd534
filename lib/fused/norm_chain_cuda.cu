// The fused norm chain's CUDA kernels: one thread block per (sample,
// channel) plane. The forward takes the plane's mean and variance (Welford,
// combined across the block), then normalises each element and writes it
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

// Calls visit(e, kept) for the elements of a plane (its first element's
// NCHW index `plane_first`) that this thread takes: `kept` is dropout's
// verdict on e. Groups of group_size() neighbours, the groups spread over
// the block's threads.
template <typename Visit>
__device__ void for_my_elements(int elements, int64_t plane_first, const Tail& tail, const Draw& draw, Visit&& visit) {
  const int group = group_size(tail), stride = static_cast<int>(blockDim.x) * group;
  for (int first = static_cast<int>(threadIdx.x) * group; first < elements; first += stride) {
    const int count = min(group, elements - first);
    const unsigned kept = group_kept(tail, draw, plane_first + first, count);
    for (int j = 0; j < count; ++j) visit(first + j, ((kept >> j) & 1u) != 0);
  }
}

template <typename T>
__global__ void chain_forward_kernel(const T* __restrict__ x, const float* __restrict__ gamma,
                                     const float* __restrict__ beta, T* __restrict__ y, float* __restrict__ means,
                                     float* __restrict__ rstds, Shape s, float eps, Tail tail) {
  const int64_t plane = blockIdx.x, elements = s.elements();
  const T* xp = x + plane * elements;
  Welford mine{0, 0, 0};
  for (int64_t i = threadIdx.x; i < elements; i += blockDim.x) mine.add(static_cast<float>(xp[i]));
  const Welford stats = block_welford(mine);
  const float mean = stats.mean, rstd = rsqrtf(stats.m2 / stats.count + eps);
  if (threadIdx.x == 0) {
    means[plane] = mean;
    rstds[plane] = rstd;
  }
  const PlaneConstants k = plane_constants(plane, s, gamma, beta, tail);
  // Within a plane 32-bit indices (norm_chain_unfit turns larger planes
  // away): a 64-bit division is many instructions on a GPU, a 32-bit one few.
  const int width = static_cast<int>(s.width), padded_width = static_cast<int>(s.padded_width());
  T* yp = y + plane * s.padded_height() * s.padded_width();
  for_my_elements(static_cast<int>(elements), plane * elements, tail, k.draw, [&](int e, bool kept) {
    const int h = e / width, w = e - h * width;
    const T v = static_cast<T>(apply_tail(normalised(static_cast<float>(xp[e]), mean, rstd, k.gamma, k.beta), tail, kept));
    scatter_padded(yp, s, h, w, v, [&](int row, int col) { return row * padded_width + col; });
  });
}

// The gradient of the normalised value at element (h, w) of a plane.
template <typename T>
__device__ float element_gradient(const T* gp, const Shape& s, int h, int w, float v, const Tail& tail, bool kept) {
  const int64_t padded_width = s.padded_width();
  const float folded =
      gather_padded<float>(gp, s, h, w, [&](int row, int col) { return row * padded_width + col; });
  return tail_gradient(folded, v, tail, kept);
}

template <typename T>
__global__ void chain_backward_kernel(const T* __restrict__ grad, const T* __restrict__ x,
                                      const float* __restrict__ gamma, const float* __restrict__ beta,
                                      const float* __restrict__ means, const float* __restrict__ rstds,
                                      T* __restrict__ dx, float* __restrict__ dgamma, float* __restrict__ dbeta,
                                      Shape s, Tail tail) {
  const int64_t plane = blockIdx.x;
  const int elements = static_cast<int>(s.elements()), width = static_cast<int>(s.width);
  const T* xp = x + plane * elements;
  const T* gp = grad + plane * s.padded_height() * s.padded_width();
  const float mean = means[plane], rstd = rstds[plane];
  const PlaneConstants k = plane_constants(plane, s, gamma, beta, tail);
  float2 sums = make_float2(0, 0);
  for_my_elements(elements, plane * elements, tail, k.draw, [&](int e, bool kept) {
    const int h = e / width, w = e - h * width;
    const float xv = static_cast<float>(xp[e]);
    const float gy = element_gradient(gp, s, h, w, normalised(xv, mean, rstd, k.gamma, k.beta), tail, kept);
    sums.x += gy;
    sums.y += gy * ((xv - mean) * rstd);
  });
  sums = block_sum(sums);
  if (threadIdx.x == 0) {
    dgamma[plane] = sums.y;
    dbeta[plane] = sums.x;
  }
  const float mean_gy = sums.x / elements, mean_gy_xhat = sums.y / elements, scale = k.gamma * rstd;
  for_my_elements(elements, plane * elements, tail, k.draw, [&](int e, bool kept) {
    const int h = e / width, w = e - h * width;
    const float xv = static_cast<float>(xp[e]);
    const float gy = element_gradient(gp, s, h, w, normalised(xv, mean, rstd, k.gamma, k.beta), tail, kept);
    dx[plane * elements + e] = static_cast<T>(scale * (gy - mean_gy - ((xv - mean) * rstd) * mean_gy_xhat));
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
