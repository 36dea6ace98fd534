#pragma once
// NAdam's update of one float32 tensor in a single pass over its elements:
// what NAdam::step's eight tensor operations do (decay, two moment updates,
// the denominator, two addcdivs), each element's arithmetic in the same order
// and in float, as LibTorch's kernels do it, but reading and writing each
// array once instead of once per operation. Torch-free, so the loop is plain
// C++ the compiler vectorizes.
#include <cstdint>

namespace trainer {

// The step's scalars, already in float as LibTorch hands them to its float
// kernels.
struct NAdamCoefficients {
  float weight_decay = 0;      // 0: no decay term
  float beta1 = 0, one_minus_beta1 = 0;
  float beta2 = 0, one_minus_beta2 = 0;
  float bias_correction2 = 1;  // 1 - beta2^t
  float eps = 0;
  float gradient_step = 0;     // -lr (1 - mu_t) / (1 - prod mu)
  float momentum_step = 0;     // -lr mu_{t+1} / (1 - prod mu * mu_{t+1})
};

// Elements [0, n) of the parameter, its gradient and the two moments.
void nadam_update(float* param, const float* grad, float* exp_avg, float* exp_avg_sq, int64_t n,
                  const NAdamCoefficients& c);

}  // namespace trainer
