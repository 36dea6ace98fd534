// CudaGraph (cuda_graph.h) for a LibTorch without CUDA: nothing to capture.
#include "device/cuda_graph.h"

#include <stdexcept>

namespace trainer {

struct CudaGraph::Impl {};

CudaGraph::CudaGraph() = default;
CudaGraph::~CudaGraph() = default;

void CudaGraph::capture(int, const std::function<void()>&) {
  throw std::runtime_error("this LibTorch has no CUDA");
}
void CudaGraph::replay() { throw std::runtime_error("this LibTorch has no CUDA"); }

bool cuda_graphs_built() { return false; }

bool stream_capturing(int) { return false; }

}  // namespace trainer
