#include "bench/matmul_bench.h"

#include <algorithm>

#include "device/cpu_info.h"
#include "device/device_memory.h"
#include "device/device_select.h"
#include "device/gpu.h"
#include "device/host_memory.h"
#include "util/error.h"
#include "util/read_file.h"
#include "util/stopwatch.h"
#include "util/torch_compat.h"

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

constexpr const char* kSmallerShape = "a smaller --shape: the product C is M x N, and the default 10000x100x100000 "
                                     "needs about 4 GiB in fp32";

std::string shape_text(const MatmulShape& shape) {
  return std::to_string(shape.m) + "x" + std::to_string(shape.k) + "x" + std::to_string(shape.n);
}

// Refuses, before allocating, a shape whose matrices cannot fit: A, B and
// the product C on the device, and the float32 inputs generated on the
// host (the same numbers on every device). A refused allocation part way
// would take the machine's memory first, and a shared server's with it.
void check_matmul_fits(const torch::Device& device, torch::ScalarType type, const std::string& dtype,
                       const MatmulShape& shape) {
  const double elements = static_cast<double>(shape.m) * shape.k + static_cast<double>(shape.k) * shape.n +
                          static_cast<double>(shape.m) * shape.n;
  const double larger_input = std::max(static_cast<double>(shape.m) * shape.k, static_cast<double>(shape.k) * shape.n);
  const double on_device = elements * static_cast<double>(c10::elementSize(type));
  // A float32 input is generated, then converted (a no-op for fp32 on a CPU).
  const double on_host =
      (device.is_cpu() ? on_device : 0) + (device.is_cpu() && type == torch::kFloat32 ? 0 : 4 * larger_input);
  const auto refuse = [&](const std::string& where, double needed, int64_t available) {
    // Dimensions in the billions overflow any byte count.
    const std::string size = needed < 9e18 ? byte_size_text(static_cast<uint64_t>(needed)) : "more than 8 EiB";
    throw OutOfMemoryError("--shape " + shape_text(shape) + " in " + dtype + " needs " + size + " on " + where +
                               " for A, B and C; " +
                               byte_size_text(static_cast<uint64_t>(available)) + " is available there",
                           kSmallerShape);
  };
  if (const auto host = available_host_memory(); host && on_host > static_cast<double>(*host))
    refuse(device.is_cpu() ? "cpu" : "the host", on_host, *host);
  if (device.is_cuda())
    for (const GpuInfo& gpu : query_gpus())
      if (gpu.index == device.index() && on_device > static_cast<double>(gpu.free_bytes))
        refuse("gpu:" + std::to_string(gpu.index), on_device, gpu.free_bytes);
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
  check_matmul_fits(device, type, dtype, shape);
  torch::NoGradGuard no_grad;
  // The same inputs on every device, so the checksums compare.
  auto generator_options = torch::TensorOptions().dtype(torch::kFloat32);
  torch::manual_seed(1234);
  torch::Tensor a, b, product;
  try {
    a = torch::rand({shape.m, shape.k}, generator_options).to(device, type);
    b = torch::rand({shape.k, shape.n}, generator_options).to(device, type);
    product = torch::empty({shape.m, shape.n}, torch::dtype(type).device(device));
  } catch (const c10::OutOfMemoryError& e) {
    throw device_out_of_memory(device, e.what_without_backtrace(), kSmallerShape);
  } catch (const c10::Error& e) {
    // What is available can shrink between the check and the allocation.
    if (!compat::is_cpu_allocation_failure(e)) throw;
    throw device_out_of_memory(device, e.what_without_backtrace(), kSmallerShape);
  }
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
