#pragma once
// Work on one batch captured as a CUDA graph (train.cuda_graph): static
// input buffers on the device that each batch is copied into, the work
// captured the first time and replayed for every later batch of the same
// shape. The training step (GraphedStep) and validation (ValidationGraph)
// are built on it.
#include <torch/torch.h>

#include <functional>

#include "device/cuda_graph.h"
#include "feed/batch_loader.h"

namespace trainer {

class BatchGraph {
 public:
  // What is captured, reading the static inputs and labels.
  using Body = std::function<void(const torch::Tensor& inputs, const torch::Tensor& labels)>;

  explicit BatchGraph(const torch::Device& device) : device_(device) {}

  // Copies `batch` into the static buffers, making them and capturing
  // `body` the first time (which records `body`'s work, it does not run
  // it: replay() does). Throws as CudaGraph::capture does.
  void load(const Batch& batch, const Body& body);
  void replay() { graph_.replay(); }
  bool captured() const { return graph_.captured(); }

 private:
  torch::Device device_;
  CudaGraph graph_;
  torch::Tensor inputs_, labels_;
};

}  // namespace trainer
