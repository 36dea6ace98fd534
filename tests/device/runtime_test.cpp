#include <catch2/catch.hpp>

#include "config/config_loader.h"
#include "device/autocast.h"
#include "device/runtime.h"
#include "util/error.h"

using namespace trainer;

namespace {

ExperimentConfig experiment_with(const std::string& extra) {
  return parse_experiment("data: {dataset: synthetic}\nloss: {from_logits: true}\nmodel: {layers: [{type: dense, units: 2}]}\n" + extra,
                          "runtime.yaml");
}

}  // namespace

TEST_CASE("fp16 on a CPU is refused where this LibTorch's CPU autocast lacks it", "[device][precision]") {
  CHECK_NOTHROW(check_precision_supported(experiment_with("precision: bf16\n"), false));
  CHECK_NOTHROW(check_precision_supported(experiment_with("mixed_precision: true\n"), false));
  CHECK_NOTHROW(check_precision_supported(experiment_with("precision: fp16\n"), true));
  const auto fp16 = experiment_with("precision: fp16\n");
  if (cpu_autocast_supports_fp16()) {
    CHECK_NOTHROW(check_precision_supported(fp16, false));
    return;
  }
  try {
    check_precision_supported(fp16, false);
    FAIL("fp16 on a CPU was accepted by a LibTorch without CPU fp16 autocast");
  } catch (const UsageError& e) {
    CHECK(e.code() == ExitCode::kUsage);
    CHECK_THAT(e.what(), Catch::Contains("fp16 is for GPUs"));
    CHECK_THAT(e.hint(), Catch::Contains("on a CPU use bf16"));
  }
  // configure_runtime checks it first, before any torch set-up.
  CHECK_THROWS_AS(configure_runtime(fp16, torch::Device(torch::kCPU)), UsageError);
}

TEST_CASE("the out-of-memory hint names the batch size and the device's precision", "[device][memory]") {
  const auto config = experiment_with("train: {batch_size: 48}\n");
  CHECK_THAT(out_of_memory_hint(config, torch::Device(torch::kCPU)),
             Catch::Contains("batch_size (48 now)") && Catch::Contains("precision: bf16"));
  CHECK_THAT(out_of_memory_hint(config, torch::Device(torch::kCUDA, 0)), Catch::Contains("mixed_precision: true"));
}
