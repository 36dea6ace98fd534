#include "util/heap_reuse.h"

#include <cstdlib>
#include <string_view>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace trainer {

bool keep_freed_memory_for_reuse() {
#if defined(__GLIBC__)
  for (const char* name : {"MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_", "GLIBC_TUNABLES", "LD_PRELOAD"})
    if (const char* value = std::getenv(name); value && *value) return false;
  if (const char* defaults = std::getenv("TRAINER_MALLOC_DEFAULTS"); defaults && std::string_view(defaults) == "1")
    return false;
  constexpr int kThreshold = 1 << 30;
  // Setting the mmap threshold also stops glibc's own threshold adjustment.
  return mallopt(M_MMAP_THRESHOLD, kThreshold) == 1 && mallopt(M_TRIM_THRESHOLD, kThreshold) == 1;
#else
  return false;
#endif
}

}  // namespace trainer
