#include "kernels/nadam_kernel.h"

#include <cmath>

#include "kernels/cpu_clones.h"

namespace trainer {

// Built with -fno-math-errno (lib/train/CMakeLists.txt): std::sqrt may then
// be a vector instruction; nothing here reads errno.
TRAINER_CPU_CLONES
void nadam_update(float* __restrict param, const float* __restrict grad, float* __restrict exp_avg,
                  float* __restrict exp_avg_sq, int64_t n, const NAdamCoefficients& c) {
  const NAdamCoefficients k = c;  // a local copy: the compiler need not reload it after each store
  for (int64_t i = 0; i < n; ++i) {
    const float p = param[i];
    // grad.add(param, weight_decay); with no decay the gradient as it is.
    const float g = k.weight_decay != 0 ? grad[i] + k.weight_decay * p : grad[i];
    // exp_avg.mul_(beta1).add_(g, 1 - beta1)
    const float m = exp_avg[i] * k.beta1 + k.one_minus_beta1 * g;
    // exp_avg_sq.mul_(beta2).addcmul_(g, g, 1 - beta2)
    const float v = exp_avg_sq[i] * k.beta2 + k.one_minus_beta2 * g * g;
    // exp_avg_sq.div(bias_correction2).sqrt_().add_(eps)
    const float denom = std::sqrt(v / k.bias_correction2) + k.eps;
    // param.addcdiv_(g, denom, ...).addcdiv_(exp_avg, denom, ...): LibTorch's
    // CPU addcdiv is self + value * t1 / t2, the product first.
    const float stepped = p + k.gradient_step * g / denom;
    param[i] = stepped + k.momentum_step * m / denom;
    exp_avg[i] = m;
    exp_avg_sq[i] = v;
  }
}

}  // namespace trainer
