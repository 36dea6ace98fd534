#pragma once
// trainer's own CPU loops split among LibTorch's intra-op threads
// (cpu_threads), as LibTorch splits its kernels.
#include <cstdint>
#include <functional>

namespace trainer {

// Calls chunk(first, last) over [begin, end): one call when the range is no
// longer than `grain` or the threads are already busy, else one contiguous
// piece per thread.
void intra_op_chunks(int64_t begin, int64_t end, int64_t grain, const std::function<void(int64_t, int64_t)>& chunk);

}  // namespace trainer
