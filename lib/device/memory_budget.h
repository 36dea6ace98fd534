#pragma once
// memory_limit on the CPU: LibTorch's CPU allocator is wrapped so that every
// tensor allocation is counted, and one that would take the process past the
// budget throws OutOfMemoryError (exit code 6) naming the budget, the request
// and the peak, instead of the kernel's OOM killer ending the job (and maybe
// a colleague's) without a word. Counts what LibTorch allocates (tensors:
// data, model, activations, optimizer state), not the program's other memory.
#include <cstdint>
#include <string>

namespace trainer {

struct MemoryUsage {
  int64_t budget_bytes = 0;  // 0: none
  int64_t current_bytes = 0;
  int64_t peak_bytes = 0;
};

// Installs the counting allocator (once per process) with `budget_bytes`
// (0: count only). `what_to_try` ends the error message.
void set_cpu_memory_budget(int64_t budget_bytes, const std::string& what_to_try);
MemoryUsage cpu_memory_usage();
void reset_cpu_memory_peak();

}  // namespace trainer
