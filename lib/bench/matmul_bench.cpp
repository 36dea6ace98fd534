#include "bench/matmul_bench.h"

#include <algorithm>

#include "device/cpu_info.h"
#include "device/device_select.h"
#include "util/error.h"
#include "util/stopwatch.h"

namespace trainer {
namespace {

torch::ScalarType scalar_type_of(const std::string& dtype) {
  if (dtype == "fp32") return torch::kFloat32;
  if (dtype == "bf16") return torch::kBFloat16;
  if (dtype == "fp16") return torch::kFloat16;
  throw UsageError("--dtype '" + dtype + "' is not one of fp32, bf16, fp16");
}

// A 2x2 product tells whether this LibTorch multiplies `type` on `device`.
void require_matmul_support(const torch::Device& device, torch::ScalarType type, const std::string& dtype) {
  try {
    const auto a = torch::ones({2, 2}, torch::dtype(type).device(device));
    (void)torch::mm(a, a);
  } catch (const c10::Error&) {
    throw UsageError(dtype + " matrix products are not supported on " + (device.is_cpu() ? "this CPU" : "this GPU") +
                         " by this LibTorch",
                     device.is_cpu() ? "use --dtype bf16 or fp32 on a CPU" : "use --dtype fp32");
  }
}

// The sum in double, a slab of rows at a time: a float64 copy of the whole
// product (8 GB at the default shape) would cost more than the product.
double checksum(const torch::Tensor& product) {
  const int64_t rows_per_slab = std::max<int64_t>(1, 10'000'000 / std::max<int64_t>(1, product.size(1)));
  double sum = 0;
  for (int64_t row = 0; row < product.size(0); row += rows_per_slab)
    sum += product.narrow(0, row, std::min(rows_per_slab, product.size(0) - row)).sum(torch::kFloat64).item<double>();
  return sum;
}

}  // namespace

MatmulResult run_matmul_bench(const std::string& device_name, const std::string& dtype, const MatmulShape& shape,
                              int repeats) {
  const torch::Device device = resolve_device(device_name);
  const torch::ScalarType type = scalar_type_of(dtype);
  require_matmul_support(device, type, dtype);
  torch::NoGradGuard no_grad;
  // The same inputs on every device, so the checksums compare.
  auto generator_options = torch::TensorOptions().dtype(torch::kFloat32);
  torch::manual_seed(1234);
  const auto a = torch::rand({shape.m, shape.k}, generator_options).to(device, type);
  const auto b = torch::rand({shape.k, shape.n}, generator_options).to(device, type);
  auto product = torch::empty({shape.m, shape.n}, torch::dtype(type).device(device));
  torch::mm_out(product, a, b);  // warm-up: kernels chosen, memory touched
  synchronize(device);
  std::vector<double> seconds;
  for (int i = 0; i < repeats; ++i) {
    Stopwatch clock;
    torch::mm_out(product, a, b);
    synchronize(device);
    seconds.push_back(clock.seconds());
  }
  std::sort(seconds.begin(), seconds.end());
  MatmulResult result;
  result.device = device_name;
  result.dtype = dtype;
  result.shape = shape;
  result.repeats = repeats;
  result.median_seconds = seconds[seconds.size() / 2];
  result.best_seconds = seconds.front();
  result.checksum = checksum(product);
  if (device.is_cpu() && type == torch::kFloat32) {
    if (const auto peak = fp32_peak(read_cpu_info())) {
      result.peak_gflops = peak->gflops;
      result.peak_basis = peak->basis;
    }
  }
  return result;
}

}  // namespace trainer
