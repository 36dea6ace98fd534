// reflection_pad's CUDA kernels for channels-last tensors: one thread per
// padded output position's pack of channels reading its reflected source
// (forward), one per input position's pack summing the 1 to 9 padded
// positions that read it (backward); neighbouring threads take neighbouring
// packs, so that every read and write is a run of whole channels.
#include <ATen/AccumulateType.h>
#include <ATen/Dispatch.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>

#include <algorithm>

#include "fused/norm_chain_math.h"
#include "fused/packed_access.cuh"
#include "fused/padded_reflection.cuh"
#include "fused/reflection_pad_backend.h"

namespace trainer::fused {
namespace {

constexpr int kThreads = 256;

// 32-bit sizes: reflection_pad_unfit turns away tensors of 2^31 elements.
struct PadShape {
  int channels, height, width, top, bottom, left, right;
  __host__ __device__ int padded_height() const { return height + top + bottom; }
  __host__ __device__ int padded_width() const { return width + left + right; }
};

// total: padded positions x packs of P channels (P: 1, or pack_size()
// where the channels and the data allow).
template <typename T, int P>
__global__ void pad_forward_kernel(const T* __restrict__ x, T* __restrict__ y, PadShape s, int total) {
  const Pack<T, P>* xs = reinterpret_cast<const Pack<T, P>*>(x);
  Pack<T, P>* ys = reinterpret_cast<Pack<T, P>*>(y);
  const int packs = s.channels / P;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < total; i += gridDim.x * blockDim.x) {
    int rest = i / packs;
    const int pack = i - rest * packs;
    const int col = rest % s.padded_width();
    rest /= s.padded_width();
    const int row = rest % s.padded_height(), n = rest / s.padded_height();
    const int h = static_cast<int>(reflected_source(row, s.height, s.top));
    const int w = static_cast<int>(reflected_source(col, s.width, s.left));
    ys[i] = xs[((n * s.height + h) * s.width + w) * packs + pack];
  }
}

// total: input positions x packs of P channels. One element a thread sums
// in acc_type (double for double); a pack, in floats.
template <typename T, int P>
__global__ void pad_backward_kernel(const T* __restrict__ grad, T* __restrict__ dx, PadShape s, int total) {
  const int packs = s.channels / P;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < total; i += gridDim.x * blockDim.x) {
    int rest = i / packs;
    const int pack = i - rest * packs;
    const int w = rest % s.width;
    rest /= s.width;
    const int h = rest % s.height, n = rest / s.height;
    if constexpr (P == 1) {
      using Sum = at::acc_type<T, /*is_cuda=*/true>;
      dx[i] = static_cast<T>(gather_padded_nhwc<Sum>(grad, s, n, h, w, pack));
    } else {
      const FloatPack<P> sum =
          gather_padded_nhwc<FloatPack<P>>(reinterpret_cast<const Pack<T, P>*>(grad), s, n, h, w, pack, packs);
      Pack<T, P> out;
#pragma unroll
      for (int k = 0; k < P; ++k) out.v[k] = static_cast<T>(sum.v[k]);
      reinterpret_cast<Pack<T, P>*>(dx)[i] = out;
    }
  }
}

PadShape shape_of(at::IntArrayRef sizes, const std::array<int64_t, 4>& pad) {
  return {static_cast<int>(sizes[1]), static_cast<int>(sizes[2]), static_cast<int>(sizes[3]),
          static_cast<int>(pad[0]),   static_cast<int>(pad[1]),   static_cast<int>(pad[2]),
          static_cast<int>(pad[3])};
}

unsigned blocks_for(int total) { return static_cast<unsigned>(std::max(1, (total + kThreads - 1) / kThreads)); }

}  // namespace

bool reflection_pad_cuda_compiled() { return true; }

at::Tensor reflection_pad_forward_cuda(const at::Tensor& x, const std::array<int64_t, 4>& pad) {
  const c10::cuda::CUDAGuard guard(x.device());
  const PadShape s = shape_of(x.sizes(), pad);
  at::Tensor y = at::empty({x.size(0), s.channels, s.padded_height(), s.padded_width()},
                           x.options().memory_format(at::MemoryFormat::ChannelsLast));
  auto stream = at::cuda::getCurrentCUDAStream();
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, x.scalar_type(), "reflection_pad_forward_cuda", [&] {
    with_pack<scalar_t>(packs_fit<scalar_t>(s.channels, {&x, &y}), [&](auto pack) {
      constexpr int P = decltype(pack)::value;
      const int total = static_cast<int>(y.numel() / P);
      pad_forward_kernel<scalar_t, P><<<blocks_for(total), kThreads, 0, stream>>>(x.data_ptr<scalar_t>(),
                                                                                  y.data_ptr<scalar_t>(), s, total);
      C10_CUDA_KERNEL_LAUNCH_CHECK();
    });
  });
  return y;
}

at::Tensor reflection_pad_backward_cuda(const at::Tensor& grad_output, at::IntArrayRef input_sizes,
                                        const std::array<int64_t, 4>& pad) {
  const c10::cuda::CUDAGuard guard(grad_output.device());
  const at::Tensor grad = grad_output.contiguous(at::MemoryFormat::ChannelsLast);
  const PadShape s = shape_of(input_sizes, pad);
  at::Tensor dx = at::empty(input_sizes, grad.options().memory_format(at::MemoryFormat::ChannelsLast));
  auto stream = at::cuda::getCurrentCUDAStream();
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, grad.scalar_type(), "reflection_pad_backward_cuda", [&] {
    // Double sums in double, one element a thread.
    const bool packed = sizeof(scalar_t) <= 4 && packs_fit<scalar_t>(s.channels, {&grad, &dx});
    with_pack<scalar_t>(packed, [&](auto pack) {
      constexpr int P = decltype(pack)::value;
      const int total = static_cast<int>(dx.numel() / P);
      pad_backward_kernel<scalar_t, P><<<blocks_for(total), kThreads, 0, stream>>>(grad.data_ptr<scalar_t>(),
                                                                                   dx.data_ptr<scalar_t>(), s, total);
      C10_CUDA_KERNEL_LAUNCH_CHECK();
    });
  });
  return dx;
}

}  // namespace trainer::fused
