#pragma once
// What the fused norm chain's two CUDA layouts share (the plane kernels of
// norm_chain_cuda.cu for NCHW, the channel-tiled ones of
// norm_chain_cuda_channels_last.cu for NHWC): the per-element tail (ReLU,
// dropout) and its gradient, the statistics' running sums and their merge,
// the batches that keep memory busy, and how a call takes its dropout draws
// from the device's generator.
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAGeneratorImpl.h>
#include <ATen/cuda/PhiloxUtils.cuh>

#include <cstring>
#include <mutex>
#include <tuple>

#include "fused/norm_chain_backend.h"
#include "fused/norm_chain_math.h"
#include "fused/packed_access.cuh"

namespace trainer::fused {

struct Tail {
  bool relu;
  float keep;  // 1: no dropout
  at::PhiloxCudaState philox;
};

// A call's dropout key and offset, as each thread reads them once (during
// a graph's capture the state points at the graph's own seed and offset).
struct Draw {
  uint64_t seed = 0, offset = 0;
};

__device__ inline Draw draw_of(const Tail& tail) {
  Draw draw;
  if (tail.keep < 1) {
    const auto unpacked = at::cuda::philox::unpack(tail.philox);
    draw.seed = std::get<0>(unpacked);
    draw.offset = std::get<1>(unpacked);
  }
  return draw;
}

// Dropout's verdicts on the `count` (1 to 4) elements whose indices in
// NCHW order (whatever the layout, so that both layouts drop the same
// elements) begin at `first`: bit j for element first + j. All kept
// without dropout.
__device__ inline unsigned group_kept(const Tail& tail, const Draw& draw, int64_t first, int count) {
  return tail.keep < 1 ? kept_bits(draw.seed, static_cast<uint64_t>(first), draw.offset, tail.keep, count) : 0xFu;
}

// How many neighbouring elements a thread takes at once: four with dropout,
// so that one Philox evaluation serves four elements instead of each
// element evaluating it for one of its four words; one without, so that
// neighbouring threads read and write neighbouring elements.
// The host sizes grids by it too.
__host__ __device__ inline int group_size(const Tail& tail) { return tail.keep < 1 ? 4 : 1; }

__device__ inline float apply_tail(float v, const Tail& tail, bool kept) {
  if (tail.relu) v = v > 0 ? v : 0;
  if (tail.keep < 1) v = kept ? v * (1 / tail.keep) : 0;
  return v;
}

__device__ inline float tail_gradient(float g, float v, const Tail& tail, bool kept) {
  if (tail.keep < 1) g = kept ? g * (1 / tail.keep) : 0;
  if (tail.relu && !(v > 0)) g = 0;
  return g;
}

// Statistics of a part of a plane, merged across threads and blocks (Chan
// et al.'s pairwise update). No member initialisers: partial statistics
// live in shared memory, which takes no dynamic initialisation.
struct Welford {
  float count, mean, m2;
  __device__ void merge(const Welford& o) {
    if (o.count == 0) return;
    const float total = count + o.count;
    const float d = o.mean - mean;
    mean += d * (o.count / total);
    m2 += o.m2 + d * d * (count * o.count / total);
    count = total;
  }
};

// How many values a thread loads before it uses any of them. A load waits
// for memory (hundreds of cycles); a loop that loads one 2-byte value and
// then uses it keeps one load a warp in flight, which at full occupancy
// moves a sixth of what an H200's memory can: the kernels load a batch,
// then compute, so that the loads overlap.
constexpr int kBatch = 8;

// A thread's running statistics as sums of its values less a shift (a
// value of the same plane): no division an element, where adding each
// value to a Welford would take one. With the shift a value of the plane,
// the squares do not cancel away (|mean - shift| is a few deviations), so
// the variance keeps float precision.
struct ShiftedSums {
  float shift, count, sum, squares;
  __device__ void add(float v) {
    const float d = v - shift;
    count += 1;
    sum += d;
    squares += d * d;
  }
  // Adds value(k) for the k < kBatch where inside(k): every load first,
  // then the sums, so that the batch's loads are in flight together.
  template <typename Inside, typename Value>
  __device__ void add_batch(Inside&& inside, Value&& value) {
    float v[kBatch];
#pragma unroll
    for (int k = 0; k < kBatch; ++k) v[k] = inside(k) ? value(k) : 0.0f;
#pragma unroll
    for (int k = 0; k < kBatch; ++k)
      if (inside(k)) add(v[k]);
  }
  __device__ Welford welford() const {
    if (count == 0) return {0, 0, 0};
    const float mean_shifted = sum / count;
    return {count, shift + mean_shifted, fmaxf(0.0f, squares - sum * mean_shifted)};
  }
};

// The call's dropout draws, taken as PyTorch's dropout takes them: the
// generator's offset advances by a multiple of 4 per call, and during
// capture the state names the graph's own seed and offset, so that each
// replay draws anew. Written to `draws` for the backward.
inline void take_draws(const at::Device& device, DropoutDraws& draws) {
  auto generator = at::cuda::detail::getDefaultCUDAGenerator(device.index());
  at::PhiloxCudaState state;
  {
    std::lock_guard<std::mutex> lock(generator.mutex());
    state = at::check_generator<at::CUDAGeneratorImpl>(generator)->philox_cuda_state(4);
  }
  static_assert(sizeof(at::PhiloxCudaState) <= sizeof(draws.words), "the draws' bytes hold a PhiloxCudaState");
  std::memcpy(draws.words.data(), &state, sizeof(state));
}

inline Tail tail_of(const NormChainOptions& options, double dropout, const DropoutDraws& draws) {
  Tail tail{options.relu, static_cast<float>(1 - dropout), {}};
  if (dropout > 0) std::memcpy(static_cast<void*>(&tail.philox), draws.words.data(), sizeof(at::PhiloxCudaState));
  return tail;
}

inline const float* data_or_null(const at::Tensor& t) { return t.defined() ? t.data_ptr<float>() : nullptr; }

}  // namespace trainer::fused
