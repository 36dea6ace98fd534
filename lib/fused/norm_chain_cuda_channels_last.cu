// The fused norm chain's CUDA kernels for channels-last (NHWC) tensors,
// where a (sample, channel) plane's elements lie a row of channels apart: a
// block per plane, as for NCHW, would read 2 or 4 useful bytes of every
// 32. Here neighbouring threads take neighbouring channels of one position,
// so that every read is a run of whole channels, and each thread loads a
// batch before it uses any (norm_chain_cuda_common.cuh says why):
//   statistics:  blocks of (32 channels x 8 positions) each reduce a chunk
//                of one sample's positions to partial statistics, kBatch
//                positions a thread at a time; a small kernel merges a
//                plane's chunks into its mean and 1 / std;
//   output:      a thread per four neighbours along a row and pack of
//                channels (packed_access.cuh; one Philox evaluation serves
//                a channel's four dropout draws), writing each to every
//                padded position that reflects it.
// The backward has the same three steps: partial sums of the gradient and
// of gradient x normalised input (each element gathering its gradient from
// the padded positions that read it, the ReLU and dropout masks
// recomputed), their merge into the per-plane sums (which are also the
// scale's and shift's gradients), and a thread per four neighbouring
// positions and pack of channels writing the input's gradient.
#include <ATen/Dispatch.h>
#include <ATen/cuda/CUDAContext.h>

#include <algorithm>

#include "fused/norm_chain_cuda_channels_last.h"
#include "fused/norm_chain_cuda_common.cuh"
#include "fused/padded_reflection.cuh"

namespace trainer::fused {
namespace {

constexpr int kLanes = 32;         // channels a statistics block covers (threadIdx.x)
constexpr int kRows = 8;           // positions it reads at once (threadIdx.y)
constexpr int kTargetBlocks = 1024;  // enough to fill a large GPU several times over
constexpr int kThreads = 256;      // per block of the element-wise kernels
// Positions a thread of the element-wise kernels takes, neighbours along a
// row (forward) or the plane (backward): their loads are in flight together,
// and with dropout one Philox evaluation serves all four.
constexpr int kPositions = 4;

// Sizes in 32-bit integers: norm_chain_unfit turns away tensors of 2^31
// elements or more, and a 64-bit division costs a GPU many instructions.
struct LastShape {
  int samples, channels, height, width, top, bottom, left, right;
  __host__ __device__ int positions() const { return height * width; }
  __host__ __device__ int padded_height() const { return height + top + bottom; }
  __host__ __device__ int padded_width() const { return width + left + right; }
};

int ceil_div(int a, int b) { return (a + b - 1) / b; }

// How many chunks a sample's positions are split into: enough blocks to
// fill the GPU, at least 4 rows of positions a block.
int chunks_for(const LastShape& s) {
  const int tiles = s.samples * ceil_div(s.channels, kLanes);
  return std::max(1, std::min(ceil_div(kTargetBlocks, tiles), ceil_div(s.positions(), 4 * kRows)));
}

// The positions [first, last) of chunk `chunk`.
__device__ void chunk_range(const LastShape& s, int chunks, int chunk, int& first, int& last) {
  const int per_chunk = (s.positions() + chunks - 1) / chunks;
  first = chunk * per_chunk;
  last = min(s.positions(), first + per_chunk);
}

struct ChannelConstants {
  float mean, rstd, gamma, beta;
};

__device__ ChannelConstants channel_constants(int plane, int c, const float* means, const float* rstds,
                                              const float* gamma, const float* beta) {
  return {means[plane], rstds[plane], gamma ? gamma[c] : 1.0f, beta ? beta[c] : 0.0f};
}

// partial: (samples, chunks, channels) x (count, mean, m2). Each thread
// loads kBatch positions of its channel before it adds them up.
template <typename T>
__global__ void partial_statistics_kernel(const T* __restrict__ x, float* __restrict__ partial, LastShape s,
                                          int chunks) {
  const int chunk = blockIdx.x, n = blockIdx.y, c = blockIdx.z * kLanes + threadIdx.x;
  int first, last;
  chunk_range(s, chunks, chunk, first, last);
  Welford w{0, 0, 0};
  if (c < s.channels) {
    const T* xs = x + static_cast<int64_t>(n) * s.positions() * s.channels + c;
    const auto value = [&](int p) { return static_cast<float>(xs[static_cast<int64_t>(p) * s.channels]); };
    const int mine = first + static_cast<int>(threadIdx.y);
    ShiftedSums sums{mine < last ? value(mine) : 0.0f, 0, 0, 0};
    for (int p = mine; p < last; p += kRows * kBatch)
      sums.add_batch([&](int k) { return p + k * kRows < last; }, [&](int k) { return value(p + k * kRows); });
    w = sums.welford();
  }
  __shared__ Welford rows[kRows][kLanes];
  rows[threadIdx.y][threadIdx.x] = w;
  __syncthreads();
  if (threadIdx.y != 0 || c >= s.channels) return;
  for (int r = 1; r < kRows; ++r) w.merge(rows[r][threadIdx.x]);
  float* out = partial + ((static_cast<int64_t>(n) * chunks + chunk) * s.channels + c) * 3;
  out[0] = w.count;
  out[1] = w.mean;
  out[2] = w.m2;
}

__global__ void merge_statistics_kernel(const float* __restrict__ partial, float* __restrict__ means,
                                        float* __restrict__ rstds, LastShape s, int chunks, float eps) {
  const int plane = blockIdx.x * blockDim.x + threadIdx.x;
  if (plane >= s.samples * s.channels) return;
  const int n = plane / s.channels, c = plane - n * s.channels;
  Welford w{0, 0, 0};
  for (int k = 0; k < chunks; ++k) {
    const float* p = partial + ((static_cast<int64_t>(n) * chunks + k) * s.channels + c) * 3;
    w.merge(Welford{p[0], p[1], p[2]});
  }
  means[plane] = w.mean;
  rstds[plane] = rsqrtf(w.m2 / w.count + eps);
}

// What the element-wise kernels need of P neighbouring channels c0 ..
// c0 + P - 1 of sample n: each one's plane constants, and with dropout
// each one's verdicts on the `count` positions from NCHW index `first` on
// (positions along a row, or along the flattened plane).
template <int P>
struct PackConstants {
  float mean[P], rstd[P], gamma[P], beta[P];
  unsigned kept[P];
  __device__ PackConstants(const LastShape& s, int n, int c0, const float* means, const float* rstds,
                           const float* gamma_, const float* beta_, const Tail& tail, const Draw& draw, int first,
                           int count) {
    // Every channel's constants first, then the draws: loads interleaved
    // with the draws' loops would wait one after another.
#pragma unroll
    for (int k = 0; k < P; ++k) {
      const ChannelConstants ck = channel_constants(n * s.channels + c0 + k, c0 + k, means, rstds, gamma_, beta_);
      mean[k] = ck.mean;
      rstd[k] = ck.rstd;
      gamma[k] = ck.gamma;
      beta[k] = ck.beta;
    }
#pragma unroll
    for (int k = 0; k < P; ++k)
      kept[k] = group_kept(tail, draw, static_cast<int64_t>(n * s.channels + c0 + k) * s.positions() + first, count);
  }
};

// total: samples x height x groups of kPositions neighbours along a row x
// packs of P channels (P: 1, or pack_size() where the channels and the
// pointers allow). A thread loads its group's packs first, then normalises
// them and writes each to every padded position that reflects it.
template <typename T, int P>
__global__ void output_kernel(const T* __restrict__ x, const float* __restrict__ gamma, const float* __restrict__ beta,
                              const float* __restrict__ means, const float* __restrict__ rstds, T* __restrict__ y,
                              LastShape s, Tail tail, int total) {
  using Packed = Pack<T, P>;
  const Packed* xs = reinterpret_cast<const Packed*>(x);
  Packed* ys = reinterpret_cast<Packed*>(y);
  const Draw draw = draw_of(tail);
  const int groups = (s.width + kPositions - 1) / kPositions, packs = s.channels / P;
  const int width = s.padded_width(), height = s.padded_height();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < total; i += gridDim.x * blockDim.x) {
    int rest = i / packs;
    const int pack = i - rest * packs, c0 = pack * P;
    const int first = (rest % groups) * kPositions;
    rest /= groups;
    const int h = rest % s.height, n = rest / s.height;
    const int count = min(kPositions, s.width - first);
    Packed in[kPositions];
#pragma unroll
    for (int j = 0; j < kPositions; ++j)
      if (j < count) in[j] = xs[(n * s.positions() + h * s.width + first + j) * packs + pack];
    const PackConstants<P> k(s, n, c0, means, rstds, gamma, beta, tail, draw, h * s.width + first, count);
#pragma unroll
    for (int j = 0; j < kPositions; ++j) {
      if (j >= count) break;
      Packed out;
#pragma unroll
      for (int q = 0; q < P; ++q)
        out.v[q] = static_cast<T>(apply_tail(normalised(static_cast<float>(in[j].v[q]), k.mean[q], k.rstd[q],
                                                        k.gamma[q], k.beta[q]),
                                             tail, ((k.kept[q] >> j) & 1u) != 0));
      scatter_padded(ys, s, h, first + j, out,
                     [&](int row, int col) { return ((n * height + row) * width + col) * packs + pack; });
    }
  }
}

// partial: (samples, chunks, channels) x (sum of the gradient, sum of the
// gradient times the normalised input). A thread takes kBatch positions at
// a time (in groups of kPositions neighbours, which one Philox evaluation
// serves), loading their inputs and gathering their gradients from the
// padded positions that read them before it uses any.
template <typename T>
__global__ void partial_sums_kernel(const T* __restrict__ grad, const T* __restrict__ x,
                                    const float* __restrict__ gamma, const float* __restrict__ beta,
                                    const float* __restrict__ means, const float* __restrict__ rstds,
                                    float* __restrict__ partial, LastShape s, Tail tail, int chunks) {
  const int chunk = blockIdx.x, n = blockIdx.y, c = blockIdx.z * kLanes + threadIdx.x;
  int first, last;
  chunk_range(s, chunks, chunk, first, last);
  float2 sums = make_float2(0, 0);
  if (c < s.channels) {
    const Draw draw = draw_of(tail);
    const int plane = n * s.channels + c;
    const ChannelConstants k = channel_constants(plane, c, means, rstds, gamma, beta);
    constexpr int groups = kBatch / kPositions;
    for (int p0 = first + static_cast<int>(threadIdx.y) * kPositions; p0 < last; p0 += kRows * kBatch) {
      // Slot q: position p0 + (q / kPositions) * kRows * kPositions + q % kPositions.
      float xv[kBatch], gy[kBatch];
#pragma unroll
      for (int q = 0; q < kBatch; ++q) {
        const int p = p0 + (q / kPositions) * kRows * kPositions + q % kPositions;
        const int h = p / s.width, w = p - h * s.width;
        xv[q] = p < last ? static_cast<float>(x[(n * s.positions() + p) * s.channels + c]) : 0.0f;
        gy[q] = p < last ? gather_padded_nhwc<float>(grad, s, n, h, w, c) : 0.0f;
      }
#pragma unroll
      for (int g = 0; g < groups; ++g) {
        const int start = p0 + g * kRows * kPositions;
        if (start >= last) break;
        const int count = min(kPositions, last - start);
        const unsigned kept = group_kept(tail, draw, static_cast<int64_t>(plane) * s.positions() + start, count);
#pragma unroll
        for (int j = 0; j < kPositions; ++j) {
          if (j >= count) break;
          const int q = g * kPositions + j;
          const float v = normalised(xv[q], k.mean, k.rstd, k.gamma, k.beta);
          const float g_out = tail_gradient(gy[q], v, tail, ((kept >> j) & 1u) != 0);
          sums.x += g_out;
          sums.y += g_out * ((xv[q] - k.mean) * k.rstd);
        }
      }
    }
  }
  __shared__ float2 rows[kRows][kLanes];
  rows[threadIdx.y][threadIdx.x] = sums;
  __syncthreads();
  if (threadIdx.y != 0 || c >= s.channels) return;
  for (int r = 1; r < kRows; ++r) {
    sums.x += rows[r][threadIdx.x].x;
    sums.y += rows[r][threadIdx.x].y;
  }
  float* out = partial + ((static_cast<int64_t>(n) * chunks + chunk) * s.channels + c) * 2;
  out[0] = sums.x;
  out[1] = sums.y;
}

// The per-plane sums: the shift's gradient parts (of the gradient) and the
// scale's (of the gradient times the normalised input).
__global__ void merge_sums_kernel(const float* __restrict__ partial, float* __restrict__ sum_gy,
                                  float* __restrict__ sum_gy_xhat, LastShape s, int chunks) {
  const int plane = blockIdx.x * blockDim.x + threadIdx.x;
  if (plane >= s.samples * s.channels) return;
  const int n = plane / s.channels, c = plane - n * s.channels;
  float a = 0, b = 0;
  for (int k = 0; k < chunks; ++k) {
    const float* p = partial + ((static_cast<int64_t>(n) * chunks + k) * s.channels + c) * 2;
    a += p[0];
    b += p[1];
  }
  sum_gy[plane] = a;
  sum_gy_xhat[plane] = b;
}

// total: samples x groups of kPositions neighbouring positions of a plane x
// packs of P channels. A thread loads its group's packs and gathers their
// gradients first, then writes the input's gradient.
template <typename T, int P>
__global__ void input_gradient_kernel(const T* __restrict__ grad, const T* __restrict__ x,
                                      const float* __restrict__ gamma, const float* __restrict__ beta,
                                      const float* __restrict__ means, const float* __restrict__ rstds,
                                      const float* __restrict__ sum_gy, const float* __restrict__ sum_gy_xhat,
                                      T* __restrict__ dx, LastShape s, Tail tail, int total) {
  using Packed = Pack<T, P>;
  const Packed* xs = reinterpret_cast<const Packed*>(x);
  const Packed* gs = reinterpret_cast<const Packed*>(grad);
  Packed* dxs = reinterpret_cast<Packed*>(dx);
  const Draw draw = draw_of(tail);
  const float elements = static_cast<float>(s.positions());
  const int groups = (s.positions() + kPositions - 1) / kPositions, packs = s.channels / P;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < total; i += gridDim.x * blockDim.x) {
    const int rest = i / packs;
    const int pack = i - rest * packs, c0 = pack * P;
    const int n = rest / groups, first = (rest - n * groups) * kPositions;
    const int count = min(kPositions, s.positions() - first);
    Packed in[kPositions];
    FloatPack<P> gathered[kPositions];
#pragma unroll
    for (int j = 0; j < kPositions; ++j) {
      if (j >= count) continue;
      const int p = first + j, h = p / s.width, w = p - h * s.width;
      in[j] = xs[(n * s.positions() + p) * packs + pack];
      gathered[j] = gather_padded_nhwc<FloatPack<P>>(gs, s, n, h, w, pack, packs);
    }
    float mean_gy[P], mean_gy_xhat[P];
#pragma unroll
    for (int q = 0; q < P; ++q) {
      mean_gy[q] = sum_gy[n * s.channels + c0 + q] / elements;
      mean_gy_xhat[q] = sum_gy_xhat[n * s.channels + c0 + q] / elements;
    }
    const PackConstants<P> k(s, n, c0, means, rstds, gamma, beta, tail, draw, first, count);
#pragma unroll
    for (int j = 0; j < kPositions; ++j) {
      if (j >= count) break;
      Packed out;
#pragma unroll
      for (int q = 0; q < P; ++q) {
        const float xv = static_cast<float>(in[j].v[q]);
        const float v = normalised(xv, k.mean[q], k.rstd[q], k.gamma[q], k.beta[q]);
        const float gy = tail_gradient(gathered[j].v[q], v, tail, ((k.kept[q] >> j) & 1u) != 0);
        const float xhat = (xv - k.mean[q]) * k.rstd[q];
        out.v[q] = static_cast<T>(k.gamma[q] * k.rstd[q] * (gy - mean_gy[q] - xhat * mean_gy_xhat[q]));
      }
      dxs[(n * s.positions() + first + j) * packs + pack] = out;
    }
  }
}

LastShape shape_of(const at::Tensor& x, const NormChainOptions& options) {
  return {static_cast<int>(x.size(0)),     static_cast<int>(x.size(1)),     static_cast<int>(x.size(2)),
          static_cast<int>(x.size(3)),     static_cast<int>(options.pad[0]), static_cast<int>(options.pad[1]),
          static_cast<int>(options.pad[2]), static_cast<int>(options.pad[3])};
}

unsigned element_blocks(int total) { return static_cast<unsigned>(std::max(1, ceil_div(total, kThreads))); }
unsigned plane_blocks(const LastShape& s) { return static_cast<unsigned>(ceil_div(s.samples * s.channels, kThreads)); }
dim3 statistics_grid(const LastShape& s, int chunks) {
  return dim3(static_cast<unsigned>(chunks), static_cast<unsigned>(s.samples),
              static_cast<unsigned>(ceil_div(s.channels, kLanes)));
}

}  // namespace

ChainForward chain_forward_channels_last(const at::Tensor& x, const at::Tensor& gamma, const at::Tensor& beta,
                                         const NormChainOptions& options, double dropout, const DropoutDraws& draws) {
  const LastShape s = shape_of(x, options);
  const int chunks = chunks_for(s);
  const auto floats = x.options().dtype(at::kFloat);
  ChainForward out{at::empty({s.samples, s.channels, s.padded_height(), s.padded_width()},
                             x.options().memory_format(at::MemoryFormat::ChannelsLast)),
                   at::empty({s.samples * s.channels}, floats), at::empty({s.samples * s.channels}, floats)};
  const at::Tensor partial = at::empty({s.samples, chunks, s.channels, 3}, floats);
  const Tail tail = tail_of(options, dropout, draws);
  auto stream = at::cuda::getCurrentCUDAStream();
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, x.scalar_type(), "norm_chain_forward_channels_last", [&] {
    partial_statistics_kernel<scalar_t><<<statistics_grid(s, chunks), dim3(kLanes, kRows), 0, stream>>>(
        x.data_ptr<scalar_t>(), partial.data_ptr<float>(), s, chunks);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    merge_statistics_kernel<<<plane_blocks(s), kThreads, 0, stream>>>(
        partial.data_ptr<float>(), out.mean.data_ptr<float>(), out.rstd.data_ptr<float>(), s, chunks,
        static_cast<float>(options.eps));
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    with_pack<scalar_t>(packs_fit<scalar_t>(s.channels, {&x, &out.output}), [&](auto pack) {
      constexpr int P = decltype(pack)::value;
      const int total = s.samples * s.height * ceil_div(s.width, kPositions) * (s.channels / P);
      output_kernel<scalar_t, P><<<element_blocks(total), kThreads, 0, stream>>>(
          x.data_ptr<scalar_t>(), data_or_null(gamma), data_or_null(beta), out.mean.data_ptr<float>(),
          out.rstd.data_ptr<float>(), out.output.data_ptr<scalar_t>(), s, tail, total);
      C10_CUDA_KERNEL_LAUNCH_CHECK();
    });
  });
  return out;
}

ChainBackward chain_backward_channels_last(const at::Tensor& grad_output, const at::Tensor& x,
                                           const at::Tensor& gamma, const at::Tensor& beta, const ChainForward& saved,
                                           const NormChainOptions& options, double dropout,
                                           const DropoutDraws& draws) {
  const at::Tensor grad = grad_output.to(x.scalar_type()).contiguous(at::MemoryFormat::ChannelsLast);
  const LastShape s = shape_of(x, options);
  const int chunks = chunks_for(s);
  const auto floats = x.options().dtype(at::kFloat);
  ChainBackward out{at::empty_like(x, x.options(), at::MemoryFormat::ChannelsLast), at::empty({s.samples, s.channels}, floats),
                    at::empty({s.samples, s.channels}, floats)};
  const at::Tensor partial = at::empty({s.samples, chunks, s.channels, 2}, floats);
  const Tail tail = tail_of(options, dropout, draws);
  auto stream = at::cuda::getCurrentCUDAStream();
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, x.scalar_type(), "norm_chain_backward_channels_last", [&] {
    partial_sums_kernel<scalar_t><<<statistics_grid(s, chunks), dim3(kLanes, kRows), 0, stream>>>(
        grad.data_ptr<scalar_t>(), x.data_ptr<scalar_t>(), data_or_null(gamma), data_or_null(beta),
        saved.mean.data_ptr<float>(), saved.rstd.data_ptr<float>(), partial.data_ptr<float>(), s, tail, chunks);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    merge_sums_kernel<<<plane_blocks(s), kThreads, 0, stream>>>(partial.data_ptr<float>(),
                                                                out.grad_beta_parts.data_ptr<float>(),
                                                                out.grad_gamma_parts.data_ptr<float>(), s, chunks);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    with_pack<scalar_t>(packs_fit<scalar_t>(s.channels, {&grad, &x, &out.grad_input}), [&](auto pack) {
      constexpr int P = decltype(pack)::value;
      const int total = s.samples * ceil_div(s.positions(), kPositions) * (s.channels / P);
      input_gradient_kernel<scalar_t, P><<<element_blocks(total), kThreads, 0, stream>>>(
          grad.data_ptr<scalar_t>(), x.data_ptr<scalar_t>(), data_or_null(gamma), data_or_null(beta),
          saved.mean.data_ptr<float>(), saved.rstd.data_ptr<float>(), out.grad_beta_parts.data_ptr<float>(),
          out.grad_gamma_parts.data_ptr<float>(), out.grad_input.data_ptr<scalar_t>(), s, tail, total);
      C10_CUDA_KERNEL_LAUNCH_CHECK();
    });
  });
  return out;
}

}  // namespace trainer::fused
