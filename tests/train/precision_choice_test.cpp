// Which type a run's forward pass takes, once the model's size is known: a
// GPU keeps fp32 for a small model, and a CPU that emulates bf16 keeps fp32,
// where the config left the choice to trainer (mixed_precision); both keep an
// explicit bf16 or fp16 with a note.
#include <catch2/catch.hpp>

#include "config/config_loader.h"
#include "models/model_fixtures.h"
#include "train/precision_choice.h"

using namespace trainer;
using namespace trainer::testing;

namespace {

ExperimentConfig config_with(const std::string& keys) {
  return parse_experiment(
      "data: {dataset: synthetic}\nloss: {from_logits: true}\nmodel: {layers: [{type: dense, units: 3}]}\n" + keys,
      "p.yaml");
}

constexpr int64_t kSmall = 1'670'000;    // the Reuters Conv1D's multiply-adds a sample
constexpr int64_t kLarge = 49'600'000'000;  // the deblurring generator's

}  // namespace

TEST_CASE("a GPU keeps fp32 for a small model where mixed_precision left the type to trainer", "[precision][choice]") {
  const PrecisionChoice small = choose_precision(config_with("mixed_precision: true\n"), true, kSmall, 32);
  CHECK(small.autocast == torch::kFloat32);
  CHECK_THAT(small.note, Catch::Contains("fp32 kept on the GPU instead of fp16") &&
                             Catch::Contains("53.4 M forward multiply-adds (1.67 M a sample x batch 32)") &&
                             Catch::Contains("precision: fp16 insists"));
  const PrecisionChoice large = choose_precision(config_with("mixed_precision: true\n"), true, kLarge, 8);
  CHECK(large.autocast == torch::kFloat16);
  CHECK(large.note.empty());
}

TEST_CASE("the line between small and large is the step's multiply-adds, batch included", "[precision][choice]") {
  const ExperimentConfig config = config_with("mixed_precision: true\n");
  const int64_t per_sample = kHalfPrecisionPaysFrom / 100;
  CHECK(choose_precision(config, true, per_sample, 99).autocast == torch::kFloat32);
  CHECK(choose_precision(config, true, per_sample, 100).autocast == torch::kFloat16);
}

TEST_CASE("an explicit bf16 or fp16 is kept on a small model, with a note", "[precision][choice]") {
  for (const char* type : {"bf16", "fp16"}) {
    const PrecisionChoice choice = choose_precision(config_with(std::string("precision: ") + type + "\n"), true, kSmall, 100);
    CHECK(choice.autocast == (std::string(type) == "bf16" ? torch::kBFloat16 : torch::kFloat16));
    CHECK_THAT(choice.note, Catch::StartsWith(std::string("precision: ") + type + " as asked") &&
                                Catch::Contains("precision: fp32 may be faster"));
  }
  CHECK(choose_precision(config_with("precision: bf16\n"), true, kLarge, 8).note.empty());
}

TEST_CASE("a CPU that emulates bf16 keeps fp32 where mixed_precision left the type to trainer", "[precision][choice]") {
  const PrecisionChoice mixed =
      choose_precision(config_with("mixed_precision: true\n"), false, kLarge, 8, CpuBf16::kEmulated);
  CHECK(mixed.autocast == torch::kFloat32);
  CHECK_THAT(mixed.note, Catch::StartsWith("mixed_precision: fp32 kept on the CPU instead of bf16") &&
                             Catch::Contains("no AVX-512-BF16 or AMX") && Catch::Contains("precision: bf16 insists"));
  const PrecisionChoice asked = choose_precision(config_with("precision: bf16\n"), false, kSmall, 32, CpuBf16::kEmulated);
  CHECK(asked.autocast == torch::kBFloat16);
  CHECK_THAT(asked.note, Catch::StartsWith("precision: bf16 as asked, though this CPU has no AVX-512-BF16 or AMX") &&
                             Catch::Contains("precision: fp32 is likely faster"));
  const PrecisionChoice fp32 = choose_precision(config_with(""), false, kSmall, 32, CpuBf16::kEmulated);
  CHECK(fp32.autocast == torch::kFloat32);
  CHECK(fp32.note.empty());
}

TEST_CASE("CPUs that compute bf16 or are not known, fp32 runs and models trainer cannot see into are left as configured",
          "[precision][choice]") {
  for (const CpuBf16 cpu_bf16 : {CpuBf16::kNative, CpuBf16::kUnknown}) {
    // The model's size does not matter on a CPU: the small one measured faster in bf16 there.
    const PrecisionChoice cpu = choose_precision(config_with("mixed_precision: true\n"), false, kSmall, 32, cpu_bf16);
    CHECK(cpu.autocast == torch::kBFloat16);
    CHECK(cpu.note.empty());
  }
  const PrecisionChoice fp32 = choose_precision(config_with(""), true, kSmall, 32);
  CHECK(fp32.autocast == torch::kFloat32);
  CHECK(fp32.note.empty());
  // A torchscript model counts no multiply-adds: nothing to judge it by.
  const PrecisionChoice unseen = choose_precision(config_with("mixed_precision: true\n"), true, 0, 32);
  CHECK(unseen.autocast == torch::kFloat16);
  CHECK(unseen.note.empty());
  // A GPU's choice does not read the CPU's bf16.
  CHECK(choose_precision(config_with("mixed_precision: true\n"), true, kLarge, 8, CpuBf16::kEmulated).autocast ==
        torch::kFloat16);
}

TEST_CASE("the choice for a built model reads its multiply-adds and the config's batch", "[precision][choice]") {
  ExperimentConfig config = config_with("mixed_precision: true\ntrain: {batch_size: 16}\n");
  const Model model = build_model(model_of("[{type: dense, units: 3}]"), feature_rows(8, 3));
  const PrecisionChoice choice = choose_precision(config, torch::Device(torch::kCUDA, 0), model);
  CHECK(choice.autocast == torch::kFloat32);
  CHECK_THAT(choice.note, Catch::Contains("384 forward multiply-adds (24 a sample x batch 16)"));
}
