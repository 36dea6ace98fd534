#pragma once
// 1-D max pooling over windows that tile each row (stride = window, no
// padding): the Conv1D models' pool of 2. LibTorch 1.13 sends a 1-D pool
// through its 2-D kernel, keeps an int64 index per output and zero-fills the
// whole input gradient before scattering into it (~20 % of the Reuters
// step); these loops keep a one-byte offset inside the window, and the
// backward writes every input element once. The element chosen within a
// window is LibTorch's: the first largest, or the last NaN. Torch-free, so
// the compiler vectorizes the loops.
#include <cstdint>

namespace trainer {

// Rows of `length` inputs, windows of `window`: floor(length / window)
// outputs a row.
struct PoolRows {
  int64_t length = 0, window = 1, outputs = 0;
};

// Rows [first, last). `offsets` may be null (no backward to come).
void window_max_1d(const float* x, float* y, uint8_t* offsets, const PoolRows& rows, int64_t first, int64_t last);
void window_max_1d_backward(const float* grad_y, const uint8_t* offsets, float* grad_x, const PoolRows& rows,
                            int64_t first, int64_t last);

}  // namespace trainer
