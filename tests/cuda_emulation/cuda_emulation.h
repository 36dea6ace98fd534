#pragma once
// CUDA's execution model on the CPU, for running trainer's kernel sources
// (lib/fused/*.cu) where no GPU is at hand: every block's threads run as
// cooperative fibers on one CPU thread, one block after another, so that
// __syncthreads and warp shuffles have CUDA's meaning, and a barrier that
// not every live thread reaches is reported instead of hanging.
//
// What it checks: the kernels' index arithmetic, thread layouts, block and
// warp reductions, and the values they compute, against the CPU loops. What
// it cannot: timing, memory coalescing, data races between threads (fibers
// switch only at barriers), device float rounding (rsqrtf, fused
// multiply-adds the compiler forms), or shared memory left uninitialised
// (__shared__ arrays become function statics, which one block at a time
// share safely but which keep the previous block's values).
//
// Included before every emulated source (-include); the sources' kernel
// launches `k<<<grid, block, shared, stream>>>(args)` are rewritten by the
// build into `::trainer_emulation::launcher(grid, block, shared, stream)(k, args)`.
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include <algorithm>
#include <cstring>
#include <functional>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __shared__ static
#define __launch_bounds__(...)

struct uint3 {
  unsigned x, y, z;
};

struct dim3 {
  unsigned x, y, z;
  dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};

struct float2 {
  float x, y;
};
inline float2 make_float2(float x, float y) { return {x, y}; }
inline float rsqrtf(float v) { return 1.0f / sqrtf(v); }
using std::max;
using std::min;

// CUDA's built-in variables: the scheduler sets them before it resumes a
// fiber.
extern uint3 threadIdx, blockIdx;
extern dim3 blockDim, gridDim;

namespace trainer_emulation {

// Runs `thread` once for every thread of every block of the grid.
void run_grid(dim3 grid, dim3 block, const std::function<void()>& thread);
// The calling thread waits until every live thread of its block does
// (__syncthreads), or every thread of its warp (the shuffles).
void wait_for_block();
void wait_for_warp(unsigned mask);
// The running thread's index within its block (x fastest), and a slot of
// 8 bytes for it that the shuffles exchange values through.
unsigned linear_thread();
uint64_t& exchange_slot(unsigned linear);

struct Launch {
  dim3 grid, block;
  // Each thread gets its own copy of the arguments, as a kernel's
  // parameters are.
  template <typename Kernel, typename... Args>
  void operator()(Kernel kernel, Args... args) const {
    run_grid(grid, block, [&] { kernel(args...); });
  }
};

template <typename Stream>
Launch launcher(dim3 grid, dim3 block, size_t /*shared bytes*/, const Stream& /*stream*/) {
  return {grid, block};
}

}  // namespace trainer_emulation

inline void __syncthreads() { trainer_emulation::wait_for_block(); }

template <typename T>
T __shfl_down_sync(unsigned mask, T value, unsigned delta) {
  static_assert(sizeof(T) <= sizeof(uint64_t), "a shuffled value fits a slot");
  const unsigned me = trainer_emulation::linear_thread();
  std::memcpy(&trainer_emulation::exchange_slot(me), &value, sizeof(T));
  trainer_emulation::wait_for_warp(mask);
  T out = value;
  // As on a GPU: a lane whose source lies beyond the warp keeps its own value.
  if (me % 32 + delta < 32) std::memcpy(&out, &trainer_emulation::exchange_slot(me + delta), sizeof(T));
  trainer_emulation::wait_for_warp(mask);
  return out;
}
