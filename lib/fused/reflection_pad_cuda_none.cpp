// A build without CUDA: reflection_pad_unfit turns CUDA tensors away first;
// these say so if ever called.
#include <c10/util/Exception.h>

#include "fused/reflection_pad_backend.h"

namespace trainer::fused {

bool reflection_pad_cuda_compiled() { return false; }

at::Tensor reflection_pad_forward_cuda(const at::Tensor&, const std::array<int64_t, 4>&) {
  TORCH_CHECK(false, "reflection_pad: this build has no CUDA kernels");
}

at::Tensor reflection_pad_backward_cuda(const at::Tensor&, at::IntArrayRef, const std::array<int64_t, 4>&) {
  TORCH_CHECK(false, "reflection_pad: this build has no CUDA kernels");
}

}  // namespace trainer::fused
