#pragma once
// Keeping freed memory in the process for the next training step.
//
// glibc's malloc gives each allocation above 32 MiB its own mmap and hands
// it back to the kernel when freed, so a step that makes large activations
// (a transformer's [batch, heads, length, length] attention scores: 46 MiB
// for the Reuters transformer) has every page of them faulted in afresh, every
// step. Where page faults are dear (virtual machines) that was most of the
// step: 8x slower on the Reuters transformer (docs/performance.md).

namespace trainer {

// Raises glibc's mmap and trim thresholds to 1 GiB, so that allocations up
// to that size come from the heap and freed memory stays there for reuse;
// the process's resident size then stays near its peak between steps.
// Does nothing where the user tunes malloc (MALLOC_MMAP_THRESHOLD_,
// MALLOC_TRIM_THRESHOLD_ or GLIBC_TUNABLES set), preloads another allocator
// (LD_PRELOAD), or sets TRAINER_MALLOC_DEFAULTS=1; and on non-glibc systems.
// Returns whether it changed anything.
bool keep_freed_memory_for_reuse();

}  // namespace trainer
