// The CUDA emulation itself: barriers and shuffles with CUDA's meaning, and
// a barrier that some threads never reach reported rather than hung.
#include <catch2/catch.hpp>

#include <stdexcept>
#include <vector>

#include "cuda_emulation.h"

namespace {

// Per block: the sum of its threads' values, by a warp shuffle reduction
// and shared memory, as the fused kernels reduce.
__global__ void block_sums(const int* values, int* sums) {
  __shared__ int partial[32];
  const unsigned me = threadIdx.x + threadIdx.y * blockDim.x;
  int v = values[blockIdx.x * blockDim.x * blockDim.y + me];
  for (int delta = 16; delta > 0; delta /= 2) v += __shfl_down_sync(0xffffffffu, v, delta);
  if (me % 32 == 0) partial[me / 32] = v;
  __syncthreads();
  if (me == 0) {
    int total = 0;
    for (unsigned w = 0; w < (blockDim.x * blockDim.y + 31) / 32; ++w) total += partial[w];
    sums[blockIdx.x] = total;
  }
}

__global__ void shuffled(int* out) { out[threadIdx.x] = __shfl_down_sync(0xffffffffu, static_cast<int>(threadIdx.x), 3); }

__global__ void early_exit(int* out) {
  if (threadIdx.x == 7) return;  // a lane leaves its warp before the shuffle
  out[threadIdx.x] = __shfl_down_sync(0xffffffffu, 1, 1);
}

}  // namespace

TEST_CASE("emulated CUDA: block reductions through shuffles and shared memory, in every block", "[emulated]") {
  const int blocks = 3;
  const dim3 block(16, 8);  // 128 threads in four warps, two-dimensional
  std::vector<int> values(blocks * 128), sums(blocks, -1);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<int>(i);
  ::trainer_emulation::launcher(blocks, block, 0, 0)(block_sums, values.data(), sums.data());
  for (int b = 0; b < blocks; ++b) CHECK(sums[b] == 128 * 128 * b + 127 * 128 / 2);
}

TEST_CASE("emulated CUDA: a shuffle from beyond the warp keeps the lane's own value", "[emulated]") {
  std::vector<int> out(64, -1);
  ::trainer_emulation::launcher(1, 64, 0, 0)(shuffled, out.data());
  CHECK(out[0] == 3);
  CHECK(out[28] == 31);
  CHECK(out[29] == 29);  // 29 + 3 lies in the next warp: its own value
  CHECK(out[32] == 35);
  CHECK(out[63] == 63);
}

TEST_CASE("emulated CUDA: a shuffle some lanes of the warp never reach is reported, not hung", "[emulated]") {
  std::vector<int> out(32, 0);
  CHECK_THROWS_WITH(::trainer_emulation::launcher(1, 32, 0, 0)(early_exit, out.data()),
                    Catch::Contains("is stuck") && Catch::Contains("WWWWWWWD"));
}
