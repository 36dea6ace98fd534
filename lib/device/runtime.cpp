#include "device/runtime.h"

#include "device/autocast.h"
#include "device/cpu_info.h"
#include "device/device_memory.h"
#include "device/gpu.h"
#include "device/thread_budget.h"
#include "util/error.h"

namespace trainer {

void check_precision_supported(const ExperimentConfig& config, bool gpu) {
  // LibTorch 1.13's CPU autocast knows bf16 only; 2.x's also fp16.
  if (gpu || autocast_dtype(config.precision, config.mixed_precision, false) != torch::kFloat16) return;
  if (cpu_autocast_supports_fp16()) return;
  throw UsageError("precision: fp16 is for GPUs (this LibTorch's CPU autocast has no fp16)",
                   "on a CPU use bf16 (or mixed_precision: true, which picks bf16 where the CPU computes it)");
}

RuntimeInfo configure_runtime(const ExperimentConfig& config, const torch::Device& device, int ranks_on_this_host,
                              bool rank_is_slurm_task) {
  check_precision_supported(config, device.is_cuda());
  RuntimeInfo info;
  // Hyper-threads share one core's vector units: more threads than physical
  // cores only make the matrix products contend.
  if (config.cpu_threads > 0) {
    info.threads = static_cast<int>(config.cpu_threads);
    info.threads_decided_by = "cpu_threads";
  } else {
    ThreadChoice choice = choose_threads(read_thread_limits(ranks_on_this_host, rank_is_slurm_task));
    info.threads = choice.threads;
    info.threads_decided_by = std::move(choice.decided_by);
    info.warnings = std::move(choice.warnings);
  }
  torch::set_num_threads(info.threads);
  info.blas = limit_blas_threads(static_cast<int>(config.blas_threads), at::hasMKL());
  if (device.is_cuda()) {
    make_gpu_current(device.index());
    // A training run's shapes repeat, so timing cuDNN's algorithms once per
    // shape pays; TF32 convolutions are PyTorch's default too.
    at::globalContext().setBenchmarkCuDNN(config.gpu.cudnn_benchmark);
    at::globalContext().setAllowTF32CuDNN(config.gpu.tf32);
  }
  // Before any tensor exists, so that everything counts against it.
  info.memory_budget =
      apply_memory_budget(device, config.memory_limit.mib * 1024 * 1024, out_of_memory_hint(config, device));
  return info;
}

std::string out_of_memory_hint(const ExperimentConfig& config, const torch::Device& device) {
  return "lower train.batch_size (" + std::to_string(config.train.batch_size.value) + " now), use " +
         (device.is_cuda() ? "mixed_precision: true" : "precision: bf16") +
         ", or raise memory_limit; checkpoints already written are intact";
}

}  // namespace trainer
