#include "train/precision_choice.h"

#include "device/autocast.h"
#include "util/text.h"

namespace trainer {
namespace {

// "53.4 M forward multiply-adds (1.67 M a sample x batch 32)"
std::string step_size(int64_t per_step, int64_t per_sample, int64_t batch_size) {
  return format_count_si(static_cast<double>(per_step)) + " forward multiply-adds (" +
         format_count_si(static_cast<double>(per_sample)) + " a sample x batch " + std::to_string(batch_size) + ")";
}

// On a CPU that emulates bf16: mixed_precision keeps fp32; an explicit bf16
// is kept, and said to be slow.
PrecisionChoice choose_on_emulating_cpu(const ExperimentConfig& config, PrecisionChoice choice) {
  if (choice.autocast != torch::kBFloat16) return choice;
  const char* const why =
      "this CPU has no AVX-512-BF16 or AMX, so LibTorch emulates bf16, several times slower than fp32 at the same "
      "accuracy (docs/performance.md, 'Mixed precision'; trainer devices says which CPUs compute it)";
  if (config.precision == Precision::kFp32) {
    choice.note = std::string("mixed_precision: fp32 kept on the CPU instead of bf16: ") + why +
                  "; precision: bf16 insists on it";
    choice.autocast = torch::kFloat32;
  } else {
    choice.note = std::string("precision: bf16 as asked, though ") + why + "; precision: fp32 is likely faster";
  }
  return choice;
}

}  // namespace

CpuBf16 this_cpu_bf16() {
  static const CpuBf16 bf16 = cpu_bf16(read_cpu_info());
  return bf16;
}

PrecisionChoice choose_precision(const ExperimentConfig& config, bool gpu, int64_t multiply_adds_per_sample,
                                 int64_t batch_size, CpuBf16 cpu) {
  PrecisionChoice choice;
  choice.autocast = autocast_dtype(config.precision, config.mixed_precision, gpu);
  if (!gpu && cpu == CpuBf16::kEmulated) return choose_on_emulating_cpu(config, choice);
  const int64_t per_step = multiply_adds_per_sample * batch_size;
  // A model trainer cannot see into (torchscript) counts 0: no grounds to judge it.
  if (!gpu || choice.autocast == torch::kFloat32 || multiply_adds_per_sample <= 0 ||
      per_step >= kHalfPrecisionPaysFrom)
    return choice;
  const std::string size = step_size(per_step, multiply_adds_per_sample, batch_size);
  const std::string limit = format_count_si(static_cast<double>(kHalfPrecisionPaysFrom));
  if (config.precision == Precision::kFp32) {
    choice.note = std::string("mixed_precision: fp32 kept on the GPU instead of ") + autocast_name(choice.autocast) +
                  ": this model's step is " + size + ", under the " + limit +
                  " below which autocast's casts of the weights cost more than half precision saves "
                  "(docs/devices.md, 'Small models on a GPU'); precision: " + autocast_name(choice.autocast) +
                  " insists on it";
    choice.autocast = torch::kFloat32;
    return choice;
  }
  choice.note = std::string("precision: ") + autocast_name(choice.autocast) + " as asked, though this model's step is " +
                size + ", under the " + limit +
                " below which half precision measured slower than fp32 on a GPU "
                "(docs/devices.md, 'Small models on a GPU'); precision: fp32 may be faster";
  return choice;
}

}  // namespace trainer
