#pragma once
// RMSprop's and Adagrad's updates of one float32 tensor in a single pass:
// both divide the gradient by the root of a running sum of its squares
// (RMSprop's decaying, Adagrad's growing). What LibTorch 1.13's
// torch::optim::RMSprop (no momentum, not centered) and Adagrad do with four
// or five tensor operations, each element's arithmetic in the same order and
// in float. Torch-free, so the loops are plain C++ the compiler vectorizes.
#include <cstdint>

namespace trainer {

struct RmspropCoefficients {
  float weight_decay = 0;  // grad + weight_decay * param
  float alpha = 0, one_minus_alpha = 0;
  float eps = 0;
  float step = 0;  // -lr
};

// square_avg = alpha * square_avg + (1 - alpha) * g^2;
// param += step * g / (sqrt(square_avg) + eps)
void rmsprop_update(float* param, const float* grad, float* square_avg, int64_t n, const RmspropCoefficients& c);

struct AdagradCoefficients {
  float weight_decay = 0;
  float eps = 0;
  float step = 0;  // -lr / (1 + (t - 1) * lr_decay)
};

// sum += g^2; param += step * g / (sqrt(sum) + eps)
void adagrad_update(float* param, const float* grad, float* sum, int64_t n, const AdagradCoefficients& c);

}  // namespace trainer
