#include "train/batch_graph.h"

namespace trainer {

void BatchGraph::load(const Batch& batch, const Body& body) {
  if (!captured()) {
    // The buffers are made before the capture, outside the graph's pool.
    inputs_ = batch.inputs.to(device_).clone();
    labels_ = batch.labels.to(device_).clone();
    graph_.capture(device_.index(), [&] { body(inputs_, labels_); });
    return;
  }
  inputs_.copy_(batch.inputs, /*non_blocking=*/true);
  labels_.copy_(batch.labels, /*non_blocking=*/true);
}

}  // namespace trainer
