#pragma once
// trainer predict's forward passes replayed from CUDA graphs: the first
// input of a shape runs eagerly (cuDNN picks its algorithms for it), the
// second is captured with its output, and every later input of that shape
// is copied into the captured input and replayed: one launch instead of the
// model's hundreds, which is what a small model's forward costs on a GPU.
// Prediction's shapes repeat: the batches of rows, an image model's tiles,
// photos of one camera. A few shapes are kept (each graph holds a memory
// pool of its own); the rest run eagerly, as does everything after a
// capture CUDA refuses (logged once).
#include <torch/torch.h>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "device/cuda_graph.h"
#include "models/model.h"
#include "spec/experiment_config.h"

namespace trainer {

class ForwardGraphs {
 public:
  using Forward = std::function<torch::Tensor(const torch::Tensor&)>;
  static constexpr size_t kMaxShapes = 4;

  // Replays only when `enabled` (forward_graphs_enabled) and the input is
  // on a CUDA device.
  ForwardGraphs(Forward forward, bool enabled);
  ForwardGraphs(const ForwardGraphs&) = delete;
  ForwardGraphs& operator=(const ForwardGraphs&) = delete;

  // The model's output for `x`: its own tensor, whichever way it was computed.
  torch::Tensor operator()(const torch::Tensor& x);

  int64_t replayed() const { return replayed_; }
  int64_t eager() const { return eager_; }
  size_t captured_shapes() const;
  // One line for the log: what replayed, or why nothing did ("" when disabled).
  std::string summary() const;

 private:
  struct Entry {
    int64_t seen = 0;
    std::unique_ptr<CudaGraph> graph;
    torch::Tensor input, output;  // the captured pass's own tensors
  };
  torch::Tensor eagerly(const torch::Tensor& x);

  Forward forward_;
  bool enabled_;
  bool failed_ = false;
  std::map<std::vector<int64_t>, Entry> entries_;
  int64_t replayed_ = 0, eager_ = 0;
};

// Whether `trainer predict` replays graphs for `model` on `device`:
// train.cuda_graph not off, a CUDA device, a build that captures, and a model
// whose forward has no data-dependent shapes (masked sequences) or code
// trainer cannot see into (torchscript layers). The reason when not, for the
// log ("" when it does).
std::string forward_graphs_refusal(const ExperimentConfig& config, const Model& model, const torch::Device& device);

}  // namespace trainer
