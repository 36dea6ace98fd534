#pragma once
// Adam's, AdamW's and SGD's updates of one float32 tensor in a single pass
// over its elements: what LibTorch 1.13's torch::optim::Adam, AdamW and SGD
// do with four to seven tensor operations, each element's arithmetic in the
// same order and in float, reading and writing each array once. Torch-free,
// so the loops are plain C++ the compiler vectorizes.
#include <cstdint>

namespace trainer {

// Adam (L2 decay added to the gradient) and AdamW (the parameter shrunk
// first); the scalars already in float, as LibTorch hands them to its kernels.
struct AdamCoefficients {
  float l2_decay = 0;        // Adam: grad + l2_decay * param
  float shrink = 1;          // AdamW: param * (1 - lr * weight_decay) first
  bool shrinks = false;
  float beta1 = 0, one_minus_beta1 = 0;
  float beta2 = 0, one_minus_beta2 = 0;
  float sqrt_bias_correction2 = 1;  // sqrt(1 - beta2^t)
  float eps = 0;
  float step = 0;  // -lr / (1 - beta1^t)
};

void adam_update(float* param, const float* grad, float* exp_avg, float* exp_avg_sq, int64_t n,
                 const AdamCoefficients& c);

struct SgdCoefficients {
  float weight_decay = 0;
  float momentum = 0;  // 0: no momentum buffer
  float one_minus_dampening = 1;
  bool nesterov = false;
  bool first_step = false;  // the buffer starts as the (decayed) gradient
  float step = 0;           // -lr
};

// `buffer` is unused (may be null) without momentum.
void sgd_update(float* param, const float* grad, float* buffer, int64_t n, const SgdCoefficients& c);

}  // namespace trainer
