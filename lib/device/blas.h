#pragma once
// Debian's LibTorch runs fp32 Linear layers through whatever libblas.so.3 the
// system selected. A threaded OpenBLAS on the small matrices of a training
// step oversubscribes the cores that LibTorch's own intra-op threads already
// use, so trainer pins BLAS to one thread itself: users need not export
// OPENBLAS_NUM_THREADS (docs/devices.md, "CPUs and BLAS").
#include <string>

namespace trainer {

struct BlasInfo {
  std::string name;  // "OpenBLAS 0.3.21 ...", "reference BLAS", ...
  bool threads_pinned = false;
};

// The BLAS library in use, as it names itself.
std::string blas_name();

// Sets the BLAS library's own thread count when it exposes a setter.
BlasInfo limit_blas_threads(int threads);

}  // namespace trainer
