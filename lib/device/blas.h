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

// The BLAS library in use, as it names itself. `libtorch_has_mkl`
// (at::hasMKL()): PyTorch's own builds link MKL into LibTorch with its
// symbols hidden, so it cannot be found by name; LibTorch then multiplies
// with it, and sets its threads along with its own.
std::string blas_name(bool libtorch_has_mkl);

// Sets the BLAS library's own thread count when it exposes a setter.
BlasInfo limit_blas_threads(int threads, bool libtorch_has_mkl);

}  // namespace trainer
