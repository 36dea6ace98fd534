// TrainingLoop: checkpoints, best.pt and the metrics each epoch appends.
#include "train/training_loop.h"

#include <filesystem>

#include "device/gpu.h"
#include "util/atomic_file.h"
#include "util/error.h"
#include "util/logging.h"
#include "util/stopwatch.h"

namespace trainer {

void TrainingLoop::restore_best() {
  const std::string best = run_.path.empty() ? "" : run_.best_checkpoint();
  cluster_.communicator().barrier();  // rank 0 has finished writing it
  if (best.empty() || !std::filesystem::exists(best)) {
    log().warn("train.early_stopping.restore_best: no best.pt to restore ({} was never measured)", best_.spec().key);
    return;
  }
  const TrainingState restored = load_checkpoint(best, *experiment_.model.net, nullptr, device_);
  if (average_ && restored.weight_average.defined()) average_->load_state(restored.weight_average);
  log().info("restored the best weights: epoch {}, {} {:.6g} ({})", best_.counters.best_epoch, best_.spec().key,
             best_.counters.best, best);
}

MonitorVerdict TrainingLoop::judge(EpochRecord& record) {
  const MonitorVerdict verdict = best_.observe(record);
  state_.monitor = best_.counters;
  record.monitored = verdict.measured;
  record.improved = verdict.improved;
  record.best_epoch = best_.counters.best_epoch;
  record.stopped_early = verdict.stop && record.epoch < config_.train.epochs;
  return verdict;
}

void TrainingLoop::keep_best(int64_t epoch, const std::string& saved) {
  if (saved.empty()) {
    save(epoch, 0, run_.best_checkpoint());
    return;
  }
  if (!cluster_.is_root()) return;
  // The epoch's file under a second name: pruning removes the epoch's name
  // later, best.pt keeps the bytes.
  link_or_copy_atomic(saved, run_.best_checkpoint());
}

std::string TrainingLoop::save(int64_t epochs_done, int64_t step_in_epoch, const std::string& to) {
  cluster_.set_phase(Phase::kCheckpoint, epochs_done, step_in_epoch);
  Stopwatch clock;
  TrainingState state = state_;
  state.optimizer = to_string(config_.optimizer.name());
  // A graphed run's step counts live on the device until now.
  step_->store_optimizer_state();
  if (const LossScaler* scaler = precision_.scaler()) state.loss_scaler = scaler->state();
  if (device_.is_cuda()) state.rng_gpu = gpu_rng_state(device_.index());
  if (average_) state.weight_average = average_->state();
  state.epoch = epochs_done;
  state.step_in_epoch = step_in_epoch;
  if (step_in_epoch > 0) {
    // The sums over all ranks, with the sample count last (as sum_over_ranks).
    torch::Tensor sums = meters_.state();
    if (cluster_.distributed()) cluster_.communicator().all_reduce(sums);
    state.epoch_metric_sums = sums;
  }
  const std::string path =
      !to.empty() ? to : run_.checkpoint_for(step_in_epoch > 0 ? epochs_done + 1 : epochs_done, step_in_epoch);
  // Every rank holds the same weights, so every rank refuses together.
  require_finite_weights(*experiment_.model.net, path);
  cluster_.communicator().barrier();
  if (cluster_.is_root()) {
    save_checkpoint(path, *experiment_.model.net, *optimizer_, state);
    if (to.empty()) prune_checkpoints(run_, config_.train.keep_checkpoints);
    // An epoch's own checkpoints are named on its line of the log; one within an epoch has its own line.
    const auto level = step_in_epoch > 0 ? spdlog::level::info : spdlog::level::debug;
    log().log(level, "checkpoint {} ({:.1f} KiB, {:.2f} s)", path,
              static_cast<double>(std::filesystem::file_size(path)) / 1024.0, clock.seconds());
  }
  cluster_.communicator().barrier();
  return path;
}

void TrainingLoop::append_metrics(const EpochRecord& record) {
  append_to_file(run_.metrics(), format_metrics_json(record));
  throw_if_log_write_failed();
  record_.add_epoch(record);
  record_.write();
}

}  // namespace trainer
