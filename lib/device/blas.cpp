#include "device/blas.h"

#include <dlfcn.h>

namespace trainer {

// The symbols are looked up at run time because which BLAS is loaded is a
// system choice (update-alternatives), not a link-time one.
std::string blas_name(bool libtorch_has_mkl) {
  using GetConfig = char* (*)();
  if (auto get_config = reinterpret_cast<GetConfig>(dlsym(RTLD_DEFAULT, "openblas_get_config")))
    return get_config();  // "OpenBLAS 0.3.21 ... Zen MAX_THREADS=64"
  if (dlsym(RTLD_DEFAULT, "MKL_Set_Num_Threads")) return "MKL";
  if (libtorch_has_mkl) return "MKL, inside LibTorch (its threads follow the intra-op threads)";
  return "unknown BLAS (no OpenBLAS symbols found; fp32 dense layers may be slow)";
}

BlasInfo limit_blas_threads(int threads, bool libtorch_has_mkl) {
  BlasInfo info;
  using SetThreads = void (*)(int);
  if (auto set_threads = reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"))) {
    set_threads(threads);
    info.threads_pinned = true;
  }
  info.name = blas_name(libtorch_has_mkl);
  return info;
}

}  // namespace trainer
