#include "kernels/intra_op.h"

#include <ATen/Parallel.h>
#include <omp.h>

namespace trainer {

// at::parallel_for is a header template whose OpenMP region exists only in
// files compiled with OpenMP: elsewhere it quietly runs the whole range on
// one thread. This file is the one built with it (lib/kernels/CMakeLists.txt).
#ifndef _OPENMP
#error "intra_op.cpp must be compiled with OpenMP, or at::parallel_for runs on one thread"
#endif

void intra_op_chunks(int64_t begin, int64_t end, int64_t grain, const std::function<void(int64_t, int64_t)>& chunk) {
  // The region opens in the OpenMP runtime this file is linked with. A
  // LibTorch that bundles its own (PyTorch's wheels) keeps cpu_threads there,
  // so this runtime is told the same count rather than taking every core.
  const int threads = at::get_num_threads();
  if (omp_get_max_threads() != threads) omp_set_num_threads(threads);
  at::parallel_for(begin, end, grain, chunk);
}

}  // namespace trainer
