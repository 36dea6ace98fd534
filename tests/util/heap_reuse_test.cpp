#include <catch2/catch.hpp>

#include <cstdlib>
#include <cstring>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "util/heap_reuse.h"

using namespace trainer;

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define TRAINER_SANITIZED_MALLOC 1
#endif

TEST_CASE("freed memory stays in the process unless the user tunes malloc", "[util][memory]") {
#if !defined(__GLIBC__) || defined(TRAINER_SANITIZED_MALLOC)
  WARN("SKIPPED: needs glibc's malloc (not a sanitizer's)");
#else
  for (const char* name : {"MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_", "GLIBC_TUNABLES", "LD_PRELOAD"})
    if (std::getenv(name)) {
      WARN("SKIPPED: " << name << " is set");
      return;
    }
  ::setenv("TRAINER_MALLOC_DEFAULTS", "1", 1);
  CHECK_FALSE(keep_freed_memory_for_reuse());
  ::unsetenv("TRAINER_MALLOC_DEFAULTS");
  REQUIRE(keep_freed_memory_for_reuse());
  // 64 MiB, above glibc's largest default mmap threshold: now from the heap.
  const size_t mapped_before = mallinfo2().hblkhd;
  auto* block = static_cast<char*>(std::malloc(64 << 20));
  REQUIRE(block != nullptr);
  std::memset(block, 1, 64 << 20);
  CHECK(mallinfo2().hblkhd == mapped_before);
  std::free(block);
  // Kept: the heap still holds it.
  CHECK(mallinfo2().fordblks >= (64u << 20));
#endif
}
