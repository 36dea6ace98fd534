#include "train/experiment_setup.h"

#include <thread>

#include "device/memory_budget.h"
#include "util/logging.h"
#include "util/stopwatch.h"
#include "util/torch_compat.h"

namespace trainer {

std::string version_text() {
  return std::string("trainer ") + TRAINER_VERSION + " (LibTorch " + compat::torch_version() + ", " +
         (torch::cuda::is_available() ? "CUDA available" : "CPU") + ")";
}

RuntimeInfo configure_runtime(const ExperimentConfig& config, int ranks_on_this_host) {
  RuntimeInfo info;
  const auto cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  info.threads = config.cpu_threads > 0 ? static_cast<int>(config.cpu_threads)
                                        : std::max(1, cores / std::max(1, ranks_on_this_host));
  torch::set_num_threads(info.threads);
  info.blas = limit_blas_threads(static_cast<int>(config.blas_threads));
  // Before any tensor exists, so that everything counts against it.
  set_cpu_memory_budget(config.memory_limit.mib * 1024 * 1024,
                        "lower train.batch_size (" + std::to_string(config.train.batch_size) +
                            " now), use precision: bf16, or raise memory_limit; checkpoints already written are intact");
  return info;
}

Model build_seeded_model(const ExperimentConfig& config, const DataInfo& info) {
  torch::manual_seed(static_cast<uint64_t>(config.experiment.seed));
  return build_model(config.model, info);
}

Experiment prepare_experiment(const ExperimentConfig& config) {
  Stopwatch clock;
  DataSplits data = load_dataset(config.data, config.experiment.seed);
  const auto& info = data.info;
  std::string shape;
  for (auto d : info.input_shape) shape += (shape.empty() ? "" : "x") + std::to_string(d);
  log().info("data: {}, {} train / {} valid samples, input {} {}, {} classes ({:.1f} s)", info.name, info.train_size,
             info.valid_size, shape, info.token_inputs ? "tokens < " + std::to_string(info.vocabulary) : "floats",
             info.classes, clock.seconds());
  Model model = build_seeded_model(config, info);
  return {std::move(data), std::move(model)};
}

}  // namespace trainer
