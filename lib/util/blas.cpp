#include "util/blas.h"

#include <dlfcn.h>

namespace trainer {

BlasInfo limit_blas_threads(int threads) {
  BlasInfo info;
  // The symbols are looked up at run time because which BLAS is loaded is a
  // system choice (update-alternatives), not a link-time one.
  using SetThreads = void (*)(int);
  using GetConfig = char* (*)();
  auto set_threads = reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"));
  auto get_config = reinterpret_cast<GetConfig>(dlsym(RTLD_DEFAULT, "openblas_get_config"));
  if (set_threads) {
    set_threads(threads);
    info.threads_pinned = true;
  }
  if (get_config) {
    info.name = get_config();  // "OpenBLAS 0.3.21 ... Zen MAX_THREADS=64"
  } else if (dlsym(RTLD_DEFAULT, "MKL_Set_Num_Threads")) {
    info.name = "MKL";
  } else {
    info.name = "unknown BLAS (no OpenBLAS symbols found; fp32 dense layers may be slow)";
  }
  return info;
}

}  // namespace trainer
