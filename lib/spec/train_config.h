#pragma once
// The `train:` section: how long and in what steps to train, what to keep,
// when to stop. Declared as experiment_config.h explains.
#include <cmath>
#include <cstdint>
#include <string>

#include "spec/checks.h"
#include "spec/enums.h"
#include "spec/field_types.h"

namespace trainer {

inline constexpr int64_t kMaxBatchSize = int64_t{1} << 30;

struct ProfileConfig {
  int64_t epoch = 0;
  int64_t steps = 10;

  template <class V> void visit_fields(V& v) {
    v("epoch", epoch, "Record the first `steps` training steps of this epoch with LibTorch's profiler into "
      "RUN_DIR/profile-EPOCH.json (a Chrome trace for Perfetto or chrome://tracing); 0 = no profile.", at_least(0));
    v("steps", steps, "Steps to record.", int_in_range(1, 10000));
  }
};

struct EarlyStoppingConfig {
  int64_t patience = 0;
  double min_delta = 0;
  bool restore_best = false;

  template <class V> void visit_fields(V& v) {
    v("patience", patience, "Stop after this many measurements of train.monitor in a row without improvement "
      "(epochs, or validations when it is a val_ figure); 0 = never stop early.", at_least(0));
    v("min_delta", min_delta, "An improvement must beat the best by more than this to reset the patience.",
      non_negative());
    v("restore_best", restore_best, "When the run ends, put the best epoch's weights (checkpoints/best.pt) back "
      "into the model: the final validation line and what the run leaves as final are the best epoch's.");
  }
};

// train.ema: an exponential moving average of the weights, kept beside
// them (Marian's exponential smoothing, Keras's use_ema, PyTorch's
// AveragedModel): after every step, average = decay * average + (1 - decay)
// * weights, starting from the weights the run starts with.
struct EmaConfig {
  double decay = 0;      // 0 (and half_life 0): off
  double half_life = 0;  // in steps: the decay whose weight halves after this many
  bool evaluate = true;  // validation, best.pt's choice, eval, predict and export use the average

  bool on() const { return decay > 0 || half_life > 0; }
  double effective_decay() const { return half_life > 0 ? std::pow(0.5, 1.0 / half_life) : decay; }
  template <class V> void visit_fields(V& v) {
    v("decay", decay, "Weight of the average kept at each step (0.999: about the last thousand steps); 0: off.",
      Check<double>([](const double& x) { return (x >= 0 && x < 1) ? "" : "a number in [0, 1)"; }));
    v("half_life", half_life, "Instead of decay: the steps after which a step's weights count half as much.",
      non_negative());
    v("evaluate", evaluate, "Validation (and so the best epoch), trainer eval, predict and export use the averaged "
                            "weights; false: the trained ones, the average only kept in the checkpoints.");
  }
};

struct TrainConfig {
  int64_t epochs = 10;
  BatchSize batch_size;
  int64_t accumulate = 1;
  int64_t valid_batch_size = 0;
  int64_t steps_per_epoch = 0;
  int64_t validate_every = 1;
  int64_t checkpoint_every = 1;
  int64_t checkpoint_every_steps = 0;
  int64_t keep_checkpoints = 3;
  RequeueSignal requeue_signal = RequeueSignal::kUsr1;
  int64_t check_finite_every = 10;
  CudaGraphMode cuda_graph = CudaGraphMode::kAuto;
  ProfileConfig profile;
  std::string monitor = "val_loss";
  MonitorMode mode = MonitorMode::kAuto;
  double min_delta = 0;
  EarlyStoppingConfig early_stopping;
  EmaConfig ema;

  template <class V> void visit_fields(V& v) {
    v("epochs", epochs, "Epochs to train.", at_least(1));
    // Bounded so that every product of batch sizes (4 x batch_size, x ranks)
    // stays far inside 64 bits; a batch larger than the data is one batch.
    v("batch_size", batch_size,
      "Samples per step (per device); auto: the largest batch whose steps fit memory_limit (which it needs), "
      "rounded down to a multiple of 8, found by trial steps when a single-device run starts and logged; the run's "
      "config.yaml keeps the number.",
      Check<BatchSize>([](const BatchSize& b) {
        return b.automatic ? std::string() : count_in_range(1, kMaxBatchSize)(b.value);
      }));
    v("accumulate", accumulate,
      "Gradient accumulation: one optimizer step per N batches of batch_size, with the gradient of their mean "
      "loss, exactly as one batch N times larger would give it (an epoch's last, shorter group: the mean over its "
      "samples); a data-parallel run reduces gradients once per step, not per batch. Steps, schedules, "
      "steps_per_epoch, the progress bar and steps.jsonl count optimizer steps.",
      count_in_range(1, 1024));
    v("valid_batch_size", valid_batch_size, "Samples per validation batch; 0 = batch_size on a CPU, 4 x batch_size on a GPU.",
      count_in_range(0, kMaxBatchSize));
    v("steps_per_epoch", steps_per_epoch, "Stop an epoch after N steps; 0 = the whole training set.",
      at_least(0));
    v("validate_every", validate_every, "Validate every N epochs (and after the last).", at_least(1));
    v("checkpoint_every", checkpoint_every, "Save a checkpoint every N epochs (and after the last).",
      at_least(1));
    v("checkpoint_every_steps", checkpoint_every_steps,
      "Also save a checkpoint every N training steps within an epoch (epoch-E-step-S.pt; a resume continues from the "
      "step exactly); 0: only at epochs' ends.", at_least(0));
    v("keep_checkpoints", keep_checkpoints, "Keep the newest N checkpoints (step checkpoints count too).", at_least(1));
    v("requeue_signal", requeue_signal,
      "The signal a cluster sends before a job's time limit (sbatch --signal=USR1@120): the run saves a checkpoint "
      "after its step and exits 10, for the job to be requeued and resume (scripts/examples/slurm-train.sbatch); "
      "usr1, usr2 or none.");
    v("check_finite_every", check_finite_every,
      "Check the training loss for NaN or infinity every N steps (a host sync each time on a GPU); a diverged "
      "run stops within N steps and saves no checkpoint.", at_least(1));
    v("cuda_graph", cuda_graph,
      "GPU runs: after 3 eager warm-up steps, capture one training step (forward, loss, backward, clipping, "
      "optimizer, metric sums) as a CUDA graph and replay it for every full batch, one launch instead of hundreds; "
      "auto: where the run allows it (the log says what prevented it otherwise), on: a prevented capture is a "
      "config error, off: eager steps. Validation and trainer predict replay captured forward passes likewise "
      "unless off.");
    v("profile", profile, "A profile of a few training steps: {epoch: E, steps: N}.");
    v("monitor", monitor, "The epoch figure that decides which epoch is best: loss, a metric (accuracy, mse, ...), or "
      "either with val_ (the validation set's). checkpoints/best.pt holds the best epoch's weights and state.",
      not_empty());
    v("mode", mode, "Whether the monitored figure improves downwards (min) or upwards (max); auto: max for accuracy, "
      "topK, psnr and ssim, min for loss, mse and mae.");
    v("min_delta", min_delta, "An epoch is an improvement (a new best.pt) only when it beats the best by more than this.",
      non_negative());
    v("early_stopping", early_stopping, "Stop when the monitored figure stops improving: {patience: P, min_delta: D, "
      "restore_best: true|false}.");
    v("ema", ema, "An exponential moving average of the weights: {decay: 0.999} or {half_life: STEPS}; "
                  "checkpoints carry it and resume it exactly.");
  }
  // Left out of a run's config.yaml while unused, as before they existed.
  bool is_quiet_default(const std::string& key) const {
    return (key == "accumulate" && accumulate == 1) || (key == "ema" && !ema.on() && ema.evaluate) ||
           (key == "cuda_graph" && cuda_graph == CudaGraphMode::kAuto);
  }
};

}  // namespace trainer
