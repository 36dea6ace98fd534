// How a TrainingLoop stops inside an epoch: a diverged loss (no checkpoint),
// and an interrupt or requeue signal that the ranks agree on by vote (a
// checkpoint, then the exit the signal asks for).
#include "train/training_loop.h"

#include "runs/resume_config.h"
#include "runs/run_dir.h"
#include "util/error.h"
#include "util/signals.h"

namespace trainer {

void TrainingLoop::stop_if_diverged(int64_t epoch, int64_t step) {
  torch::Tensor non_finite = meters_.loss_non_finite();
  if (cluster_.distributed()) cluster_.communicator().all_reduce(non_finite, ReduceOp::kMax);
  // On a GPU the verdict is read one check late, so that the host never
  // waits for the device inside an epoch: a diverged run then stops within
  // two checks. Every rank reads the same reduced verdict at the same step.
  const bool late = non_finite.is_cuda();
  int64_t checked_step = step;
  if (late) {
    checked_step = divergence_step_;
    torch::Tensor previous = divergence_check_.pending() ? divergence_check_.take() : torch::Tensor();
    divergence_check_.start(non_finite);
    divergence_step_ = step;
    if (!previous.defined() || previous.item<double>() == 0) return;
  } else if (non_finite.item<double>() == 0) {
    return;
  }
  progress_.finish();
  throw DivergedError("the training loss became NaN or infinite in epoch " + std::to_string(epoch) + " by step " +
                          std::to_string(checked_step) + " (checked every " +
                          std::to_string(config_.train.check_finite_every) + " steps" +
                          (late ? ", read one check later on a GPU" : "") + "); no checkpoint saved",
                      diverged_hint());
}

std::string TrainingLoop::diverged_hint() const {
  const std::string fix = "lower optimizer.lr, or set optimizer.clip_norm";
  // A run that diverges in its first epoch has saved nothing to go back to.
  const std::vector<std::string> saved = list_checkpoints(run_);
  if (saved.empty()) return fix + "; no checkpoint was saved before it diverged";
  return fix + "; the last good checkpoint is " + saved.back();
}

bool TrainingLoop::stop_voted(const torch::Tensor& votes) {
  if (!votes.is_cuda()) return votes.item<double>() > 0;
  // On a GPU the ranks' votes are read one step late, as the divergence
  // check is, so that the host does not wait for each step's all-reduce;
  // every rank reads the same sum after the same step, so all stop together,
  // one step after the signal.
  const torch::Tensor previous = stop_vote_read_.pending() ? stop_vote_read_.take() : torch::Tensor();
  stop_vote_read_.start(votes);
  return previous.defined() && previous.item<double>() > 0;
}

void TrainingLoop::stop_for_interrupt(int64_t epoch, int64_t step) {
  progress_.finish();
  flush_step_point();
  const bool epoch_done = step >= steps_per_epoch_;
  const std::string path = save(epoch_done ? epoch : epoch - 1, epoch_done ? 0 : step);
  // Every rank stopped on the vote; one that got the requeue signal says so.
  if (requeue_requested())
    throw RequeueError("requeue signal (train.requeue_signal) in epoch " + std::to_string(epoch) + " after step " +
                       std::to_string(step) + "; checkpoint saved to " + path +
                       "\nthe requeued job continues with: " + resume_command(run_.path));
  throw InterruptedError("interrupted in epoch " + std::to_string(epoch) + " after step " + std::to_string(step) +
                         "; checkpoint saved to " + path + "\nresume with: " + resume_command(run_.path));
}

}  // namespace trainer
