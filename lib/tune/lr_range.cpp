#include "tune/lr_range.h"

#include "device/device_select.h"
#include "device/runtime.h"
#include "train/batch_size_search.h"
#include "train/step_runner.h"
#include "util/logging.h"

namespace trainer {

LrRangeCurve run_lr_range_test(const ExperimentConfig& config, const LrRangeOptions& options) {
  const torch::Device device = primary_device(config.devices.entries);
  configure_runtime(config, device);
  StepRunner runner(config, device);
  LrRangeCurve curve;
  curve.steps_planned = options.steps;
  const std::vector<double> rates = lr_range_rates(options.min_lr, options.max_lr, options.steps);
  // The rate suits the batch it is found with: an automatic one first.
  const int64_t batch =
      config.train.batch_size.automatic ? auto_batch_size_with(runner, config) : config.train.batch_size.value;
  runner.run_at_rates(batch, rates, [&](int64_t step, double loss) {
    if (!add_lr_range_point(curve, rates[static_cast<size_t>(step)], loss)) return false;
    log().debug("lr {:.3g}: loss {:.4f}, smoothed {:.4f}", rates[static_cast<size_t>(step)], loss,
                curve.points.back().smoothed);
    return true;
  });
  suggest_lr(curve);
  return curve;
}

}  // namespace trainer
