#include "infer/forward_graphs.h"

#include <fmt/format.h>

#include <stdexcept>

#include "util/logging.h"

namespace trainer {

ForwardGraphs::ForwardGraphs(Forward forward, bool enabled) : forward_(std::move(forward)), enabled_(enabled) {}

torch::Tensor ForwardGraphs::eagerly(const torch::Tensor& x) {
  ++eager_;
  return forward_(x);
}

torch::Tensor ForwardGraphs::operator()(const torch::Tensor& x) {
  if (!enabled_ || failed_ || !x.is_cuda()) return eagerly(x);
  const std::vector<int64_t> shape(x.sizes().begin(), x.sizes().end());
  auto it = entries_.find(shape);
  if (it == entries_.end()) {
    if (entries_.size() >= kMaxShapes) return eagerly(x);
    it = entries_.emplace(shape, Entry()).first;
  }
  Entry& entry = it->second;
  if (!entry.graph) {
    // The first input of a shape warms up (cuDNN's algorithm search does
    // not belong in a capture); the second is captured.
    if (entry.seen++ == 0) return eagerly(x);
    entry.input = x.clone();
    auto graph = std::make_unique<CudaGraph>();
    try {
      graph->capture(x.device().index(), [&] { entry.output = forward_(entry.input); });
    } catch (const c10::OutOfMemoryError& error) {
      log().warn("cuda_graph: capturing predict's forward pass ran out of memory ({}); eager from here",
                 std::string(error.what_without_backtrace()).substr(0, 200));
      failed_ = true;
      entries_.clear();
      return eagerly(x);
    } catch (const std::runtime_error& error) {
      log().warn("cuda_graph: predict's forward pass could not be captured ({}); eager from here", error.what());
      failed_ = true;
      entries_.clear();
      return eagerly(x);
    }
    entry.graph = std::move(graph);
  }
  entry.input.copy_(x);
  entry.graph->replay();
  ++replayed_;
  // A copy: the next replay overwrites the graph's output in place.
  return entry.output.clone();
}

size_t ForwardGraphs::captured_shapes() const {
  size_t n = 0;
  for (const auto& [shape, entry] : entries_) n += entry.graph != nullptr;
  return n;
}

std::string ForwardGraphs::summary() const {
  if (!enabled_) return "";
  if (failed_) return "cuda_graph: predict ran its forward passes eagerly (a capture failed)";
  return fmt::format("cuda_graph: {} of {} forward passes replayed a captured graph ({} shape{} captured)", replayed_,
                     replayed_ + eager_, captured_shapes(), captured_shapes() == 1 ? "" : "s");
}

std::string forward_graphs_refusal(const ExperimentConfig& config, const Model& model, const torch::Device& device) {
  if (config.train.cuda_graph == CudaGraphMode::kOff) return "train.cuda_graph: off";
  if (!device.is_cuda()) return "not a GPU run";
  if (!cuda_graphs_built()) return "this build has no CUDA";
  if (model.net->masks()) return "the model masks padded sequences (data-dependent shapes)";
  if (model.scripted) return "a torchscript layer (code trainer cannot see into)";
  return "";
}

}  // namespace trainer
