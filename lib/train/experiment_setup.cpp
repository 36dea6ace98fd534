#include "train/experiment_setup.h"

#include "device/cpu_info.h"
#include "device/device_memory.h"
#include "device/gpu.h"
#include "util/logging.h"
#include "util/stopwatch.h"
#include "util/torch_compat.h"

namespace trainer {

std::string version_text() {
  return std::string("trainer ") + TRAINER_VERSION + " (LibTorch " + compat::torch_version() + ", " +
         (torch::cuda::is_available() ? "CUDA available" : "CPU") + ")";
}

RuntimeInfo configure_runtime(const ExperimentConfig& config, const torch::Device& device, int ranks_on_this_host) {
  RuntimeInfo info;
  // Hyper-threads share one core's vector units: more threads than physical
  // cores only make the matrix products contend.
  info.threads = config.cpu_threads > 0 ? static_cast<int>(config.cpu_threads)
                                        : default_threads_per_rank(read_cpu_info(), ranks_on_this_host);
  torch::set_num_threads(info.threads);
  info.blas = limit_blas_threads(static_cast<int>(config.blas_threads));
  if (device.is_cuda()) make_gpu_current(device.index());
  // Before any tensor exists, so that everything counts against it.
  info.memory_budget =
      apply_memory_budget(device, config.memory_limit.mib * 1024 * 1024, out_of_memory_hint(config, device));
  return info;
}

std::string out_of_memory_hint(const ExperimentConfig& config, const torch::Device& device) {
  return "lower train.batch_size (" + std::to_string(config.train.batch_size) + " now), use " +
         (device.is_cuda() ? "mixed_precision: true" : "precision: bf16") +
         ", or raise memory_limit; checkpoints already written are intact";
}

Model build_seeded_model(const ExperimentConfig& config, const DataInfo& info) {
  torch::manual_seed(static_cast<uint64_t>(config.experiment.seed));
  return build_model(config.model, info);
}

Experiment prepare_experiment(const ExperimentConfig& config, const torch::Device& device) {
  Stopwatch clock;
  DataSplits data = load_dataset(config.data, config.experiment.seed);
  const auto& info = data.info;
  std::string shape;
  for (auto d : info.input_shape) shape += (shape.empty() ? "" : "x") + std::to_string(d);
  log().info("data: {}, {} train / {} valid samples, input {} {}, {} classes ({:.1f} s)", info.name, info.train_size,
             info.valid_size, shape, info.token_inputs ? "tokens < " + std::to_string(info.vocabulary) : "floats",
             info.classes, clock.seconds());
  Model model = build_seeded_model(config, info);
  // Initialised on the CPU, so a seed gives the same weights on every device.
  if (!device.is_cpu()) model.net->to(device);
  return {std::move(data), std::move(model)};
}

}  // namespace trainer
