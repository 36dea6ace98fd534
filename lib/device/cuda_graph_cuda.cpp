// CudaGraph (cuda_graph.h) for a CUDA LibTorch (TRAINER_TORCH_HAS_CUDA), as
// torch.cuda.graph does it: a side stream that waits for the current one,
// capture there, and the current stream waits for the side one after.
#include "device/cuda_graph.h"

#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/CUDAGeneratorImpl.h>
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAGraphsC10Utils.h>
#include <c10/cuda/CUDAGuard.h>

#include <stdexcept>

namespace trainer {

struct CudaGraph::Impl {
  at::cuda::CUDAGraph graph;
};

CudaGraph::CudaGraph() : impl_(std::make_unique<Impl>()) {}
CudaGraph::~CudaGraph() = default;

void CudaGraph::capture(int device_index, const std::function<void()>& work) {
  const auto device = static_cast<c10::DeviceIndex>(device_index);
  c10::cuda::CUDAGuard device_guard(device);
  const at::cuda::CUDAStream current = at::cuda::getCurrentCUDAStream(device);
  const at::cuda::CUDAStream side = at::cuda::getStreamFromPool(false, device);
  // Everything queued so far finishes first: no work of an eager step may
  // be running while its memory is handed to the graph's pool.
  current.synchronize();
  try {
    c10::cuda::CUDAStreamGuard stream_guard(side);
    // Dropout draws from the default generator: registered, its offsets
    // inside the graph are relative to a device tensor that each replay
    // advances. (Some LibTorch versions register it themselves; registering
    // twice is harmless.)
    impl_->graph.register_generator_state(at::cuda::detail::getDefaultCUDAGenerator(device));
    // Thread-local: the loader's threads may pin host memory meanwhile,
    // which a global capture would count as an unsafe call.
    impl_->graph.capture_begin({0, 0}, cudaStreamCaptureModeThreadLocal);
    try {
      work();
    } catch (...) {
      // Ends the capture, so that the stream can be used again; the
      // half-made graph is dropped.
      try {
        impl_->graph.capture_end();
      } catch (...) {
      }
      impl_->graph.reset();
      throw;
    }
    impl_->graph.capture_end();
  } catch (const c10::OutOfMemoryError&) {
    throw;  // the caller's to explain: the graph's pool is memory of its own
  } catch (const c10::Error& error) {
    throw std::runtime_error(error.what_without_backtrace());
  }
  side.synchronize();
  captured_ = true;
}

void CudaGraph::replay() {
  if (!captured_) throw std::logic_error("CudaGraph::replay before capture");
  impl_->graph.replay();
}

bool cuda_graphs_built() { return true; }

bool stream_capturing(int device_index) {
  const c10::cuda::CUDAGuard guard(static_cast<c10::DeviceIndex>(device_index));
  return c10::cuda::currentStreamCaptureStatusMayInitCtx() != c10::cuda::CaptureStatus::None;
}

}  // namespace trainer
