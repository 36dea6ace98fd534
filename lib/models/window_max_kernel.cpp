#include "models/window_max_kernel.h"

#include <cstring>

#include "util/cpu_clones.h"

namespace trainer {

namespace {

// LibTorch's rule: (v > best) || isnan(v), written without a branch so that
// the loops vectorize; `v != v` is isnan. A scan from -inf and one from the
// window's first element choose alike (-inf: neither moves; a NaN first:
// both take it), so the loops start from the first element.
inline bool takes(float v, float best) { return (v > best) | (v != v); }

}  // namespace

TRAINER_CPU_CLONES
void window_max_1d(const float* x, float* y, uint8_t* offsets, const PoolRows& shape, int64_t first, int64_t last) {
  const PoolRows s = shape;  // a local copy: stores through uint8_t* would force reloads
  for (int64_t row = first; row < last; ++row) {
    const float* __restrict in = x + row * s.length;
    float* __restrict out = y + row * s.outputs;
    uint8_t* __restrict at = offsets ? offsets + row * s.outputs : nullptr;
    if (s.window == 2) {  // the common pool, as a loop of selects
      for (int64_t o = 0; o < s.outputs; ++o) {
        const float a = in[2 * o], b = in[2 * o + 1];
        const bool take = takes(b, a);
        out[o] = take ? b : a;
        if (at) at[o] = take ? 1 : 0;
      }
      continue;
    }
    for (int64_t o = 0; o < s.outputs; ++o) {
      const float* window = in + o * s.window;
      float best = window[0];
      int offset = 0;
      for (int64_t j = 1; j < s.window; ++j) {
        const bool take = takes(window[j], best);
        best = take ? window[j] : best;
        offset = take ? static_cast<int>(j) : offset;
      }
      out[o] = best;
      if (at) at[o] = static_cast<uint8_t>(offset);
    }
  }
}

TRAINER_CPU_CLONES
void window_max_1d_backward(const float* grad_y, const uint8_t* offsets, float* grad_x, const PoolRows& shape,
                            int64_t first, int64_t last) {
  const PoolRows s = shape;
  const int64_t covered = s.outputs * s.window;
  for (int64_t row = first; row < last; ++row) {
    const float* __restrict g = grad_y + row * s.outputs;
    const uint8_t* __restrict at = offsets + row * s.outputs;
    float* __restrict gx = grad_x + row * s.length;
    if (s.window == 2) {
      for (int64_t o = 0; o < s.outputs; ++o) {
        const bool second = at[o] != 0;
        const float value = g[o];
        gx[2 * o] = second ? 0.0f : value;
        gx[2 * o + 1] = second ? value : 0.0f;
      }
    } else {
      for (int64_t o = 0; o < s.outputs; ++o)
        for (int64_t j = 0; j < s.window; ++j) gx[o * s.window + j] = j == at[o] ? g[o] : 0.0f;
    }
    // Inputs past the last whole window get no gradient.
    if (covered < s.length) std::memset(gx + covered, 0, sizeof(float) * static_cast<size_t>(s.length - covered));
  }
}

}  // namespace trainer
