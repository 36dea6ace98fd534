#include "optim/fused_pass.h"

#include <torch/torch.h>

#include "kernels/intra_op.h"

namespace trainer {

bool fusable(const at::Tensor& param, std::initializer_list<const at::Tensor*> others) {
  if (!param.is_non_overlapping_and_dense() || !param.device().is_cpu() || param.scalar_type() != torch::kFloat)
    return false;
  for (const at::Tensor* t : others)
    if (!t->defined() || !t->device().is_cpu() || t->scalar_type() != torch::kFloat || t->is_sparse() ||
        t->sizes() != param.sizes() || t->strides() != param.strides())
      return false;
  return true;
}

void for_chunks(int64_t elements, const std::function<void(int64_t, int64_t)>& update) {
  intra_op_chunks(0, elements, at::internal::GRAIN_SIZE, update);
}

}  // namespace trainer
