#pragma once
// Validation's forward pass, loss and metric sums captured once as a CUDA
// graph (train.cuda_graph) and replayed for every full validation batch of
// the run: the launches of a small model's forward cost more host time than
// its GPU time, as its training steps' do. The first full batch runs
// eagerly (cuDNN picks its algorithms for the eval shapes, the sums settle
// on the device) and the next one is captured; an epoch's last, shorter
// batch runs eagerly. The graph's sums are this object's meters, zeroed in
// place before each validation, so every validation of the run replays the
// one capture. A capture CUDA refuses (or that runs out of memory) is a
// warning, and validation stays eager from then on.
#include <torch/torch.h>

#include "spec/experiment_config.h"
#include "train/batch_graph.h"
#include "train/metrics.h"

namespace trainer {

class ValidationGraph {
 public:
  // `meters` as validation would make them; `full_batch` its batch size.
  ValidationGraph(MetricAccumulator meters, const torch::Device& device, int64_t full_batch);

  MetricAccumulator& meters() { return meters_; }
  // Whether `batch` goes through the graph (a full batch after the warm-up,
  // no failed capture); otherwise the caller runs it eagerly and calls
  // count_eager() with it.
  bool replays(const Batch& batch) const;
  void count_eager(const Batch& batch);
  // Copies `batch` in and replays `body`'s capture (capturing it first).
  // False when the capture failed: logged, and the batch is the caller's
  // to run eagerly (nothing of it ran).
  bool run(const Batch& batch, const BatchGraph::Body& body);

  bool captured() const { return graph_.captured(); }
  int64_t replayed_batches() const { return replayed_; }

 private:
  MetricAccumulator meters_;
  BatchGraph graph_;
  int64_t full_batch_;
  int64_t eager_full_batches_ = 0, replayed_ = 0;
  bool failed_ = false;
};

}  // namespace trainer
