#pragma once
// A CUDA graph: the GPU work a function queues, recorded once and replayed
// as one launch (train.cuda_graph). cuda_graph_cuda.cpp implements it with
// LibTorch's at::cuda::CUDAGraph when the LibTorch has CUDA;
// cuda_graph_none.cpp otherwise, where capture always fails, so CPU builds
// never see CUDA headers. LibTorch registers the default CUDA generator with
// every capture: each replay draws new dropout masks, and the generator's
// state (checkpoints) advances as it would eagerly.
#include <cstdint>
#include <functional>
#include <memory>

namespace trainer {

class CudaGraph {
 public:
  CudaGraph();
  ~CudaGraph();
  CudaGraph(const CudaGraph&) = delete;
  CudaGraph& operator=(const CudaGraph&) = delete;

  // Records what `work` queues on GPU `device_index`, on a side stream
  // (capture cannot use the default one) after the current stream's work;
  // nothing runs. Its tensors come from the graph's private memory pool and
  // stay where they are for every replay. Throws std::runtime_error with
  // CUDA's reason when the work cannot be captured (a host sync inside it),
  // c10::OutOfMemoryError when the graph's pool does not fit.
  void capture(int device_index, const std::function<void()>& work);
  // Queues the recorded work on the current stream.
  void replay();
  bool captured() const { return captured_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  bool captured_ = false;
};

// Whether this build can capture at all (a CUDA LibTorch).
bool cuda_graphs_built();

// Whether GPU `device_index`'s current stream is capturing a graph now (false
// in a build without CUDA): what is allocated and copied then belongs to
// the graph and runs again at every replay.
bool stream_capturing(int device_index);

}  // namespace trainer
