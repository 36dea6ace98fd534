#pragma once
// The reflection padding's two directions as the CUDA kernels take them
// (the norm chain's in both layouts, reflection_pad's): forward, an element
// is written to every padded position that reflects it; backward, its
// gradient is the sum of the padded output's gradients at those positions.
#include <stdint.h>

#include "fused/norm_chain_math.h"

namespace trainer::fused {

// Whether element (h, w) of a plane is read by its own padded position
// alone, as all but the few rows and columns next to the edges the padding
// reflects are (padded_readers' count 1 both ways): the kernels' common
// case, one access at a fixed offset, without the readers' arithmetic.
template <typename Shape>
__device__ inline bool reflected_once(const Shape& s, int h, int w) {
  const int height = static_cast<int>(s.height), width = static_cast<int>(s.width);
  return (h == 0 || h > s.top) && (h == height - 1 || h < height - 1 - s.bottom) && (w == 0 || w > s.left) &&
         (w == width - 1 || w < width - 1 - s.right);
}

// Writes `v` to the 1 to 9 positions of the padded `y` that reflect element
// (h, w) of a plane: `at(row, col)` says where padded position (row, col)
// lies in `y`, whatever the layout. Shape: height, width, top, bottom, left
// and right. Unrolled over all three slots, as gather_padded below.
template <typename T, typename Shape, typename At>
__device__ inline void scatter_padded(T* __restrict__ y, const Shape& s, int h, int w, T v, At&& at) {
  if (reflected_once(s, h, w)) {
    y[at(h + static_cast<int>(s.top), w + static_cast<int>(s.left))] = v;
    return;
  }
  int64_t rows[3], cols[3];
  const int nr = padded_readers(h, s.height, s.top, s.bottom, rows);
  const int nc = padded_readers(w, s.width, s.left, s.right, cols);
#pragma unroll
  for (int i = 0; i < 3; ++i)
#pragma unroll
    for (int j = 0; j < 3; ++j)
      if (i < nr && j < nc) y[at(static_cast<int>(rows[i]), static_cast<int>(cols[j]))] = v;
}

// The sum of the padded gradients `g` over the 1 to 9 positions that
// reflect element (h, w) of a plane: `at(row, col)` says where padded
// position (row, col) lies in `g`, whatever the layout. Shape: height,
// width, top, bottom, left and right. Both loops run over all three slots
// of padded_readers, unrolled, so that the slots stay in registers.
template <typename Sum, typename T, typename Shape, typename At>
__device__ inline Sum gather_padded(const T* __restrict__ g, const Shape& s, int h, int w, At&& at) {
  if (reflected_once(s, h, w)) return static_cast<Sum>(g[at(h + static_cast<int>(s.top), w + static_cast<int>(s.left))]);
  int64_t rows[3], cols[3];
  const int nr = padded_readers(h, s.height, s.top, s.bottom, rows);
  const int nc = padded_readers(w, s.width, s.left, s.right, cols);
  Sum sum = 0;
#pragma unroll
  for (int i = 0; i < 3; ++i)
#pragma unroll
    for (int j = 0; j < 3; ++j)
      if (i < nr && j < nc) sum += static_cast<Sum>(g[at(static_cast<int>(rows[i]), static_cast<int>(cols[j]))]);
  return sum;
}

// The same for element (n, h, w, c) of a channels-last tensor whose
// positions hold `per_position` of g's elements (its channels, or packs of
// them, c then counting packs); Shape also has padded_height() and
// padded_width(), in 32 bits.
template <typename Sum, typename T, typename Shape>
__device__ inline Sum gather_padded_nhwc(const T* __restrict__ g, const Shape& s, int n, int h, int w, int c,
                                         int per_position) {
  return gather_padded<Sum>(g, s, h, w, [&](int row, int col) {
    return ((n * s.padded_height() + row) * s.padded_width() + col) * per_position + c;
  });
}

template <typename Sum, typename T, typename Shape>
__device__ inline Sum gather_padded_nhwc(const T* __restrict__ g, const Shape& s, int n, int h, int w, int c) {
  return gather_padded_nhwc<Sum>(g, s, n, h, w, c, s.channels);
}

}  // namespace trainer::fused
