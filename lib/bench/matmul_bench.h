#pragma once
// The classic CPU-vs-GPU comparison: A(m x k) @ B(k x n) on one device and
// dtype, the median of `repeats` timed runs after a warm-up.
#include <string>

#include "bench/matmul_report.h"

namespace trainer {

// Throws DeviceError for a device that does not exist, UsageError for a
// dtype the device cannot multiply (fp16 on most CPUs).
MatmulResult run_matmul_bench(const std::string& device, const std::string& dtype, const MatmulShape& shape,
                              int repeats);

}  // namespace trainer
