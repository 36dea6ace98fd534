#include "tune/speed_tune.h"

#include "bench/training_bench.h"
#include "config/config_loader.h"
#include "device/device_select.h"
#include "device/thread_budget.h"
#include "fused/norm_chain.h"
#include "util/error.h"
#include "util/logging.h"

namespace trainer {
namespace {

SpeedPlanInput plan_input(const ExperimentConfig& config) {
  SpeedPlanInput input;
  input.gpu = config.devices.entries.front() != "cpu";
  input.cores = choose_threads(read_thread_limits(1, false)).threads;
  input.threads = std::to_string(config.cpu_threads);
  input.precision = config.precision == Precision::kBf16   ? "bf16"
                    : config.precision == Precision::kFp16 ? "fp16"
                                                           : "fp32";
  input.workers = std::to_string(config.data.workers);
  input.batch_size = config.train.batch_size.automatic ? 0 : config.train.batch_size.value;
  input.channels_last = config.gpu.channels_last;
  input.cudnn_benchmark = config.gpu.cudnn_benchmark;
  input.fused_kernels = config.gpu.fused_kernels;
  input.has_fused_kernels = norm_chain_cuda_compiled();
  return input;
}

}  // namespace

SpeedTuneResult tune_speed(const std::string& file, const std::vector<std::string>& overrides,
                           const SpeedTuneOptions& options) {
  const ExperimentConfig base = load_experiment(file, overrides);
  if (base.devices.entries.size() > 1)
    throw UsageError("trainer tune measures one device, not devices: " + std::to_string(base.devices.entries.size()),
                     "tune on one of them: --set devices=" + base.devices.entries.front());
  SpeedTuneResult result;
  result.experiment_file = file;
  result.device = device_entry(primary_device(base.devices.entries));
  result.steps = options.steps;
  result.warmup = options.warmup;
  TrainingBenchOptions bench;
  bench.steps = options.steps;
  bench.warmup = options.warmup;
  std::vector<std::pair<std::string, std::string>> kept;  // the best so far, every knob tried
  const auto measure = [&](const std::string& key, const std::string& value) {
    SpeedTrial trial{key, value, std::nullopt, {}, false};
    std::vector<std::string> sets = overrides;
    for (const auto& [k, v] : kept)
      if (k != key) sets.push_back(k + "=" + v);
    sets.push_back(key + "=" + value);
    // The experiment as it is must train: its error is the command's.
    if (result.trials.empty()) {
      trial.samples_per_second =
          run_training_bench(base.experiment.name, load_experiment(file, sets), bench).samples_per_second();
      return trial;
    }
    try {
      trial.samples_per_second =
          run_training_bench(base.experiment.name, load_experiment(file, sets), bench).samples_per_second();
    } catch (const OutOfMemoryError&) {
      trial.why = "does not fit memory_limit";
    } catch (const c10::OutOfMemoryError&) {
      trial.why = "out of device memory";
    } catch (const Error& e) {
      trial.why = "not possible here";
      log().info("tune: {} {}: {}", key, value, e.what());
    }
    return trial;
  };
  for (const SpeedKnob& knob : plan_speed_knobs(plan_input(base))) {
    // The first value is the current one; a later one replaces it only when
    // clearly faster.
    std::optional<size_t> best;
    for (const std::string& value : knob.values) {
      result.trials.push_back(measure(knob.key, value));
      const SpeedTrial& trial = result.trials.back();
      if (!trial.samples_per_second) continue;
      log().info("tune: {} {}: {:.0f} samples/s", knob.key, value, *trial.samples_per_second);
      if (!best || *trial.samples_per_second > *result.trials[*best].samples_per_second * (1 + kSpeedMargin))
        best = result.trials.size() - 1;
    }
    // The current value trained before (it is the last setting's choice).
    if (!best) throw Error(ExitCode::kInternal, "trainer tune: no value of " + knob.key + " trained a step");
    result.trials[*best].chosen = true;
    kept.emplace_back(knob.key, result.trials[*best].value);
    if (knob.changes_training && result.trials[*best].value != knob.values.front())
      result.changes_training.push_back(knob.key);
  }
  result.chosen = kept;
  // The verdict from the two measured again back to back, so that the
  // machine's drift over the trials (caches, clocks, other work) is not in it.
  std::vector<std::string> tuned = overrides;
  for (const auto& [key, value] : kept) tuned.push_back(key + "=" + value);
  result.start_speed =
      run_training_bench(base.experiment.name, load_experiment(file, overrides), bench).samples_per_second();
  result.tuned_speed =
      run_training_bench(base.experiment.name, load_experiment(file, tuned), bench).samples_per_second();
  log().info("tune: measured again: {:.0f} samples/s as the experiment is, {:.0f} tuned", result.start_speed,
             result.tuned_speed);
  return result;
}

}  // namespace trainer
