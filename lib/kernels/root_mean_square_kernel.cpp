#include "kernels/root_mean_square_kernel.h"

#include <cmath>

#include "kernels/cpu_clones.h"

namespace trainer {

// Built with -fno-math-errno (lib/train/CMakeLists.txt): std::sqrt may then
// be a vector instruction; nothing here reads errno.
TRAINER_CPU_CLONES
void rmsprop_update(float* __restrict param, const float* __restrict grad, float* __restrict square_avg, int64_t n,
                    const RmspropCoefficients& c) {
  const RmspropCoefficients k = c;  // a local copy: the compiler need not reload it after each store
  for (int64_t i = 0; i < n; ++i) {
    const float p = param[i];
    // grad.add(param, weight_decay)
    const float g = k.weight_decay != 0 ? grad[i] + k.weight_decay * p : grad[i];
    // square_avg.mul_(alpha).addcmul_(grad, grad, 1 - alpha)
    const float s = square_avg[i] * k.alpha + k.one_minus_alpha * g * g;
    // square_avg.sqrt().add_(eps)
    const float avg = std::sqrt(s) + k.eps;
    // param.addcdiv_(grad, avg, -lr): self + value * t1 / t2
    param[i] = p + k.step * g / avg;
    square_avg[i] = s;
  }
}

TRAINER_CPU_CLONES
void adagrad_update(float* __restrict param, const float* __restrict grad, float* __restrict sum, int64_t n,
                    const AdagradCoefficients& c) {
  const AdagradCoefficients k = c;
  for (int64_t i = 0; i < n; ++i) {
    const float p = param[i];
    const float g = k.weight_decay != 0 ? grad[i] + k.weight_decay * p : grad[i];
    // sum.addcmul_(grad, grad, 1.0): 1 * g is g exactly
    const float s = sum[i] + g * g;
    // sum.sqrt().add_(eps), then param.addcdiv_(grad, std, -clr)
    const float std_dev = std::sqrt(s) + k.eps;
    param[i] = p + k.step * g / std_dev;
    sum[i] = s;
  }
}

}  // namespace trainer
