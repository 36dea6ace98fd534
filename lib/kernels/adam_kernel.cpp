#include "kernels/adam_kernel.h"

#include <cmath>

#include "kernels/cpu_clones.h"

namespace trainer {

// Built with -fno-math-errno (lib/train/CMakeLists.txt): std::sqrt may then
// be a vector instruction; nothing here reads errno.
TRAINER_CPU_CLONES
void adam_update(float* __restrict param, const float* __restrict grad, float* __restrict exp_avg,
                 float* __restrict exp_avg_sq, int64_t n, const AdamCoefficients& c) {
  const AdamCoefficients k = c;  // a local copy: the compiler need not reload it after each store
  for (int64_t i = 0; i < n; ++i) {
    // AdamW: param.mul_(1 - lr * weight_decay)
    const float p = k.shrinks ? param[i] * k.shrink : param[i];
    // Adam: grad.add(param, weight_decay)
    const float g = k.l2_decay != 0 ? grad[i] + k.l2_decay * p : grad[i];
    // exp_avg.mul_(beta1).add_(grad, 1 - beta1)
    const float m = exp_avg[i] * k.beta1 + k.one_minus_beta1 * g;
    // exp_avg_sq.mul_(beta2).addcmul_(grad, grad, 1 - beta2)
    const float v = exp_avg_sq[i] * k.beta2 + k.one_minus_beta2 * g * g;
    // (exp_avg_sq.sqrt() / sqrt(bias_correction2)).add_(eps)
    const float denom = std::sqrt(v) / k.sqrt_bias_correction2 + k.eps;
    // param.addcdiv_(exp_avg, denom, -step_size): self + value * t1 / t2
    param[i] = p + k.step * m / denom;
    exp_avg[i] = m;
    exp_avg_sq[i] = v;
  }
}

TRAINER_CPU_CLONES
void sgd_update(float* __restrict param, const float* __restrict grad, float* __restrict buffer, int64_t n,
                const SgdCoefficients& c) {
  const SgdCoefficients k = c;
  for (int64_t i = 0; i < n; ++i) {
    const float p = param[i];
    // d_p = grad.add(param, weight_decay)
    float d = k.weight_decay != 0 ? grad[i] + k.weight_decay * p : grad[i];
    if (k.momentum != 0) {
      // A first step clones d_p; later ones buf.mul_(momentum).add_(d_p, 1 - dampening).
      const float b = k.first_step ? d : buffer[i] * k.momentum + k.one_minus_dampening * d;
      buffer[i] = b;
      // Nesterov: d_p.add(buf, momentum); else d_p = buf
      d = k.nesterov ? d + k.momentum * b : b;
    }
    // param.add_(d_p, -lr)
    param[i] = p + k.step * d;
  }
}

}  // namespace trainer
