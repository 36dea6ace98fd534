#pragma once
// Averages gradients across ranks the way DDP does: parameters are grouped
// into buckets of about dist.bucket_mb, in reverse order (the order backward
// produces their gradients); a hook on each parameter copies its gradient into
// its bucket, and a full bucket starts its all-reduce at once, while backward
// goes on with earlier layers. finalize() waits for the rest and hands each
// parameter its averaged gradient as a view into its bucket (no copy back).
// The narrow interface is Flashlight's: per-gradient add, finalize before step.
#include <torch/torch.h>

#include <memory>
#include <vector>

#include "distributed/communicator.h"

namespace trainer {

struct ReducerStats {
  int64_t steps = 0;
  int64_t buckets_per_step = 0;
  double finalize_seconds = 0;  // step time spent waiting for all-reduces (not overlapped)
};

class GradientReducer {
 public:
  GradientReducer(Communicator& communicator, std::vector<torch::Tensor> parameters, double bucket_mb);
  ~GradientReducer();
  GradientReducer(const GradientReducer&) = delete;
  GradientReducer& operator=(const GradientReducer&) = delete;

  // Before backward: this rank's share of the global batch (its samples /
  // all ranks' samples), by which its mean-loss gradient is weighted, so the
  // sum over ranks is the gradient of the global batch's mean loss even when
  // the ranks' batches differ in size. 0: this rank had no samples.
  //
  // `vote` rides along in the last bucket and is summed over the ranks
  // (control_sum() after finalize): the ranks agree on stopping after an
  // interrupt without a collective of its own.
  void begin_step(double weight, float vote = 0.0f);
  // Instead of begin_step, before the backward of a batch whose gradient is
  // accumulated locally (train.accumulate: every batch of a step but its
  // last): the hooks leave it to autograd, and no collective runs. The step's
  // last batch then calls begin_step, and its gradients join the ones held.
  void hold() { holding_ = true; }
  // After backward (or instead of it, for weight 0): every bucket reduced,
  // every parameter's .grad the global gradient. Throws DistributedError.
  void finalize();

  // A step captured as a CUDA graph in two parts around the all-reduce
  // (train.cuda_graph): begin_capture(weight) before the backward is
  // captured, so that the hooks record their copies into the buckets and
  // start no collective; end_capture() at the end of the captured work
  // (parameters without a gradient get zeros in their bucket, recorded
  // too). After each replay of that work the buckets hold this step's
  // weighted gradients: reduce_replayed(vote) all-reduces every bucket, in
  // order, as an eager step does, so that ranks stepping eagerly and ranks
  // replaying issue the same collectives. The weight is the capture's.
  void begin_capture(double weight);
  void end_capture();
  void reduce_replayed(float vote);
  double weight() const { return weight_; }

  // The sum over all ranks of this step's `vote`: as a scalar tensor on the
  // buckets' device (a view, overwritten by the next step), and read.
  torch::Tensor control_votes() const { return buckets_.back().flat[buckets_.back().gradient_numel]; }
  float control_sum() const { return control_votes().item<float>(); }

  const ReducerStats& stats() const { return stats_; }
  void reset_stats() {
    stats_.steps = 0;
    stats_.finalize_seconds = 0;
  }

 private:
  struct Slot {
    torch::Tensor parameter;
    size_t bucket;
    int64_t offset;
  };
  struct Bucket {
    torch::Tensor flat;  // gradients, then (last bucket) the vote
    int64_t gradient_numel = 0;
    std::vector<size_t> slots;
    size_t pending = 0;  // gradients not yet copied in this step
    bool launched = false;
    std::unique_ptr<PendingCollective> work;
  };

  void on_gradient(size_t slot, const torch::Tensor& gradient);
  void launch_ready_buckets();
  // Waits for every bucket's all-reduce and hands each parameter its
  // averaged gradient (a view into its bucket).
  void hand_out_gradients();

  Communicator& communicator_;
  std::vector<Slot> slots_;
  std::vector<Bucket> buckets_;
  std::vector<std::pair<torch::Tensor, unsigned>> hooks_;
  size_t next_to_launch_ = 0;
  double weight_ = 1.0;
  bool holding_ = false;
  bool capturing_ = false;  // the hooks record copies and launch nothing
  std::vector<bool> filled_;  // each slot's bucket part written in this step
  ReducerStats stats_;
};

}  // namespace trainer
