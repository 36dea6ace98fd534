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

// Rows [first, last). `offsets` may be null (no backward to come). Each
// loop comes for float32 and for bf16, passed as its 16 bits (uint16_t):
// bf16 is compared as the float it stands for and moved bit for bit, so the
// bf16 results are LibTorch's bf16 pool's.
void window_max_1d(const float* x, float* y, uint8_t* offsets, const PoolRows& rows, int64_t first, int64_t last);
void window_max_1d(const uint16_t* x, uint16_t* y, uint8_t* offsets, const PoolRows& rows, int64_t first,
                   int64_t last);
void window_max_1d_backward(const float* grad_y, const uint8_t* offsets, float* grad_x, const PoolRows& rows,
                            int64_t first, int64_t last);
void window_max_1d_backward(const uint16_t* grad_y, const uint8_t* offsets, uint16_t* grad_x, const PoolRows& rows,
                            int64_t first, int64_t last);

// A 2-D pool of windows that tile each plane (stride = window, no padding),
// the images' pool of 2x2: LibTorch's forward is kept (its channels-last
// kernel is as fast as a plain loop gets here), and its backward replaced.
// That backward zero-fills the whole input gradient, then adds each output's
// gradient at its int64 index; here every input element is written once:
// the gradient where LibTorch's index points at it, else 0. No two windows
// share an input, so the result is LibTorch's.
struct PoolPlanes {
  int64_t batch = 0, channels = 0, height = 0, width = 0;
  int64_t window_h = 1, window_w = 1, out_h = 0, out_w = 0;
  bool channels_last = false;  // NHWC memory (else NCHW)
};

// Input rows [first, last) of the gradient: rows are (n, h) pairs for
// channels-last memory and (n, c, h) triples for NCHW. `indices` are
// LibTorch's (h * width + w within the plane), laid out as grad_y.
int64_t window_max_2d_rows(const PoolPlanes& planes);
void window_max_2d_backward(const float* grad_y, const int64_t* indices, float* grad_x, const PoolPlanes& planes,
                            int64_t first, int64_t last);
void window_max_2d_backward(const uint16_t* grad_y, const int64_t* indices, uint16_t* grad_x,
                            const PoolPlanes& planes, int64_t first, int64_t last);

}  // namespace trainer
