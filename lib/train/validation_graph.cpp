#include "train/validation_graph.h"

#include "util/logging.h"

namespace trainer {

ValidationGraph::ValidationGraph(MetricAccumulator meters, const torch::Device& device, int64_t full_batch)
    : meters_(std::move(meters)), graph_(device), full_batch_(full_batch) {}

bool ValidationGraph::replays(const Batch& batch) const {
  return !failed_ && eager_full_batches_ >= 1 && batch.size() == full_batch_;
}

void ValidationGraph::count_eager(const Batch& batch) {
  if (batch.size() == full_batch_) ++eager_full_batches_;
}

bool ValidationGraph::run(const Batch& batch, const BatchGraph::Body& body) {
  try {
    graph_.load(batch, body);
  } catch (const c10::OutOfMemoryError&) {
    log().warn("cuda_graph: capturing validation's forward pass ran out of memory (the graph's pool is its own); "
               "eager validation from here");
    failed_ = true;
    return false;
  } catch (const std::runtime_error& error) {
    log().warn("cuda_graph: validation's forward pass could not be captured ({}); eager validation from here",
               error.what());
    failed_ = true;
    return false;
  }
  graph_.replay();
  ++replayed_;
  return true;
}

}  // namespace trainer
