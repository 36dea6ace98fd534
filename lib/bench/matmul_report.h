#pragma once
// `trainer bench --device ...`: the matrix-product benchmark's shape, result
// and its text and JSON reports. Torch-free; the measuring is in
// matmul_bench.cpp.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace trainer {

// A (m x k) @ B (k x n).
struct MatmulShape {
  int64_t m = 10000, k = 100, n = 100000;
  double flops() const { return 2.0 * static_cast<double>(m) * static_cast<double>(k) * static_cast<double>(n); }
};

// "10000x100x100000" (M x K x N); throws UsageError.
MatmulShape parse_matmul_shape(const std::string& text);

struct MatmulResult {
  std::string device;  // "cpu", "gpu:0"
  std::string dtype;   // "fp32", "bf16", "fp16"
  MatmulShape shape;
  int repeats = 0;
  double median_seconds = 0;
  double best_seconds = 0;
  double checksum = 0;  // the sum of the product, in double: compare devices with it
  std::optional<double> peak_gflops;
  std::string peak_basis;
  double gflops() const { return shape.flops() / median_seconds / 1e9; }
};

// One line per device, then the speed-up of each over the first.
std::string format_matmul_text(const std::vector<MatmulResult>& results);
// {"benchmark":"matmul", "results":[{...}, ...]}
std::string format_matmul_json(const std::vector<MatmulResult>& results);

}  // namespace trainer
