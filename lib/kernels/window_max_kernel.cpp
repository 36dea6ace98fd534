#include "kernels/window_max_kernel.h"

#include <cstring>
#include <type_traits>

#include "kernels/cpu_clones.h"

namespace trainer {

namespace {

// LibTorch's rule: (v > best) || isnan(v), written without a branch so that
// the loops vectorize; `v != v` is isnan. A scan from -inf and one from the
// window's first element choose alike (-inf: neither moves; a NaN first:
// both take it), so the loops start from the first element.
inline bool takes(float v, float best) { return (v > best) | (v != v); }

// An element's value: float as it is; bf16 (its 16 bits) widened to the
// float it stands for, exactly, as LibTorch compares bf16. The loops move the
// chosen element's own bits, so a bf16 pool rounds nothing.
inline float value_of(float v) { return v; }
inline float value_of(uint16_t bf16) {
  const uint32_t bits = static_cast<uint32_t>(bf16) << 16;
  float v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

template <typename T>
inline __attribute__((always_inline)) void max_1d(const T* x, T* y, uint8_t* offsets, const PoolRows& shape,
                                                  int64_t first, int64_t last) {
  const PoolRows s = shape;  // a local copy: stores through uint8_t* would force reloads
  for (int64_t row = first; row < last; ++row) {
    const T* __restrict in = x + row * s.length;
    T* __restrict out = y + row * s.outputs;
    uint8_t* __restrict at = offsets ? offsets + row * s.outputs : nullptr;
    if (s.window == 2) {  // the common pool, as a loop of selects
      for (int64_t o = 0; o < s.outputs; ++o) {
        const T a = in[2 * o], b = in[2 * o + 1];
        const bool take = takes(value_of(b), value_of(a));
        out[o] = take ? b : a;
        if (at) at[o] = take ? 1 : 0;
      }
      continue;
    }
    for (int64_t o = 0; o < s.outputs; ++o) {
      const T* window = in + o * s.window;
      float best = value_of(window[0]);
      int offset = 0;
      for (int64_t j = 1; j < s.window; ++j) {
        const float v = value_of(window[j]);
        const bool take = takes(v, best);
        best = take ? v : best;
        offset = take ? static_cast<int>(j) : offset;
      }
      if constexpr (std::is_same_v<T, float>)
        out[o] = best;
      else
        out[o] = window[offset];  // the element's own bits
      if (at) at[o] = static_cast<uint8_t>(offset);
    }
  }
}

template <typename T>
void zero(T* to, int64_t count) {
  std::memset(to, 0, sizeof(T) * static_cast<size_t>(count));  // +0 in float and in bf16
}

template <typename T>
inline __attribute__((always_inline)) void max_1d_backward(const T* grad_y, const uint8_t* offsets, T* grad_x,
                                                           const PoolRows& shape, int64_t first, int64_t last) {
  const PoolRows s = shape;
  const int64_t covered = s.outputs * s.window;
  const T nothing{};  // +0
  for (int64_t row = first; row < last; ++row) {
    const T* __restrict g = grad_y + row * s.outputs;
    const uint8_t* __restrict at = offsets + row * s.outputs;
    T* __restrict gx = grad_x + row * s.length;
    if (s.window == 2) {
      for (int64_t o = 0; o < s.outputs; ++o) {
        const bool second = at[o] != 0;
        const T value = g[o];
        gx[2 * o] = second ? nothing : value;
        gx[2 * o + 1] = second ? value : nothing;
      }
    } else {
      for (int64_t o = 0; o < s.outputs; ++o)
        for (int64_t j = 0; j < s.window; ++j) gx[o * s.window + j] = j == at[o] ? g[o] : nothing;
    }
    // Inputs past the last whole window get no gradient.
    if (covered < s.length) zero(gx + covered, s.length - covered);
  }
}

}  // namespace

TRAINER_CPU_CLONES
void window_max_1d(const float* x, float* y, uint8_t* offsets, const PoolRows& rows, int64_t first, int64_t last) {
  max_1d(x, y, offsets, rows, first, last);
}

TRAINER_CPU_CLONES
void window_max_1d(const uint16_t* x, uint16_t* y, uint8_t* offsets, const PoolRows& rows, int64_t first,
                   int64_t last) {
  max_1d(x, y, offsets, rows, first, last);
}

TRAINER_CPU_CLONES
void window_max_1d_backward(const float* grad_y, const uint8_t* offsets, float* grad_x, const PoolRows& rows,
                            int64_t first, int64_t last) {
  max_1d_backward(grad_y, offsets, grad_x, rows, first, last);
}

TRAINER_CPU_CLONES
void window_max_1d_backward(const uint16_t* grad_y, const uint8_t* offsets, uint16_t* grad_x, const PoolRows& rows,
                            int64_t first, int64_t last) {
  max_1d_backward(grad_y, offsets, grad_x, rows, first, last);
}

int64_t window_max_2d_rows(const PoolPlanes& p) {
  return p.channels_last ? p.batch * p.height : p.batch * p.channels * p.height;
}

namespace {

// NHWC: each input pixel's channels are contiguous, as are its window's
// output gradients and indices, so the inner loop runs over the channels.
template <typename T>
inline __attribute__((always_inline)) void backward_channels_last(const T* grad_y, const int64_t* indices, T* grad_x,
                                                                  const PoolPlanes& planes, int64_t first,
                                                                  int64_t last) {
  const PoolPlanes p = planes;  // a local copy: the stores might otherwise alias it
  const int64_t c_count = p.channels;
  for (int64_t row = first; row < last; ++row) {
    const int64_t n = row / p.height, h = row % p.height, oh = h / p.window_h;
    T* __restrict gx_row = grad_x + row * p.width * c_count;
    if (oh >= p.out_h) {  // below the last whole window
      zero(gx_row, p.width * c_count);
      continue;
    }
    const int64_t out_row = (n * p.out_h + oh) * p.out_w;
    const int64_t covered = p.out_w * p.window_w;
    for (int64_t ow = 0; ow < p.out_w; ++ow) {
      const T* __restrict g = grad_y + (out_row + ow) * c_count;
      const int64_t* __restrict index = indices + (out_row + ow) * c_count;
      for (int64_t j = 0; j < p.window_w; ++j) {
        const int64_t w = ow * p.window_w + j;
        const int64_t here = h * p.width + w;
        T* __restrict gx = gx_row + w * c_count;
        for (int64_t c = 0; c < c_count; ++c) gx[c] = index[c] == here ? g[c] : T{};
      }
    }
    zero(gx_row + covered * c_count, (p.width - covered) * c_count);
  }
}

// NCHW: one plane row at a time; each output covers window_w inputs.
template <typename T>
inline __attribute__((always_inline)) void backward_planes(const T* grad_y, const int64_t* indices, T* grad_x,
                                                           const PoolPlanes& planes, int64_t first, int64_t last) {
  const PoolPlanes p = planes;
  for (int64_t row = first; row < last; ++row) {
    const int64_t plane = row / p.height, h = row % p.height, oh = h / p.window_h;
    T* __restrict gx = grad_x + row * p.width;
    if (oh >= p.out_h) {
      zero(gx, p.width);
      continue;
    }
    const int64_t at = (plane * p.out_h + oh) * p.out_w;
    const T* __restrict g = grad_y + at;
    const int64_t* __restrict index = indices + at;
    const int64_t covered = p.out_w * p.window_w;
    for (int64_t o = 0; o < p.out_w; ++o)
      for (int64_t j = 0; j < p.window_w; ++j) {
        const int64_t w = o * p.window_w + j;
        gx[w] = index[o] == h * p.width + w ? g[o] : T{};
      }
    zero(gx + covered, p.width - covered);
  }
}

template <typename T>
inline __attribute__((always_inline)) void max_2d_backward(const T* grad_y, const int64_t* indices, T* grad_x,
                                                           const PoolPlanes& planes, int64_t first, int64_t last) {
  if (planes.channels_last)
    backward_channels_last(grad_y, indices, grad_x, planes, first, last);
  else
    backward_planes(grad_y, indices, grad_x, planes, first, last);
}

}  // namespace

TRAINER_CPU_CLONES
void window_max_2d_backward(const float* grad_y, const int64_t* indices, float* grad_x, const PoolPlanes& planes,
                            int64_t first, int64_t last) {
  max_2d_backward(grad_y, indices, grad_x, planes, first, last);
}

TRAINER_CPU_CLONES
void window_max_2d_backward(const uint16_t* grad_y, const int64_t* indices, uint16_t* grad_x,
                            const PoolPlanes& planes, int64_t first, int64_t last) {
  max_2d_backward(grad_y, indices, grad_x, planes, first, last);
}

}  // namespace trainer
