#pragma once
// Whether the LibTorch in use has its fused optimizer kernels
// (at::_fused_adam_, _fused_adamw_ and _fused_sgd_, torch.optim's
// `fused=True`) with a learning rate that may be a device tensor: 2.2 and
// later. Debian's 1.13 has none of them.
#include <torch/version.h>

#define TRAINER_HAS_FUSED_OPTIMIZERS (TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 2))
