#include "train/experiment_setup.h"

#include "util/logging.h"
#include "util/stopwatch.h"

namespace trainer {

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
