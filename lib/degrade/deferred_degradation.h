#pragma once
// What an image_degrade batch leaves for the step's device to do
// (data.degrade.on_device): the blurs, the noise, the rounding to grey
// levels, the augmentations' flips, quarter turns and brightness, and the
// pixel scaling, for the whole batch at once. On a GPU run the loader threads
// then only cut sharp windows and draw the random choices; the blur of a
// 256 x 256 patch by a 40-pixel trajectory is thousands of multiply-adds a
// pixel, which starved the step when done on the CPU.
//
// ImagePatchSource fills it from the same draws as its CPU path, BatchFeed
// copies it to the device with the batch and calls finish(). The inputs are
// apply_degradation's (degrade/image_degrade.h) to within a grey level: the
// blur is one FFT convolution instead of direct sums, and a value that
// lands within float rounding of a half is rounded either way.
#include <torch/torch.h>

#include <array>
#include <cstdint>
#include <vector>

#include "degrade/image_degrade.h"

namespace trainer {

// One sample's random choices beyond its window and blur.
struct SampleOrientation {
  bool flip_vertical = false;
  bool flip_horizontal = false;
  int quarter_turns = 0;  // counter-clockwise, as numpy's rot90
  float brightness = 0;   // added to 0..255 values after the degradation
};

struct DeferredDegradation {
  // [N, C, H + 2M, W + 2M], 0..255: each sample's sharp window with a margin
  // of M pixels (its image's edge repeated beyond it), unturned. A sample
  // whose degradation has a JPEG step is degraded whole on the CPU (libjpeg)
  // and sits in its window's centre, with a single-tap kernel and no noise.
  torch::Tensor windows;
  // [N, K, K], K = 2M + 1: each sample's combined_blur, centred.
  torch::Tensor kernels;
  torch::Tensor noise_sigmas;  // [N] float64, of 255; 0: none
  torch::Tensor noise_keys;    // [N] int64: the bits of each Degradation::noise_key
  torch::Tensor brightness;    // [N] float32: each SampleOrientation's
  // On the host, read as the work is queued: no device value is waited for.
  std::vector<SampleOrientation> orientations;
  bool noisy = false;           // some noise_sigma is not 0
  float multiply = 1, add = 0;  // value * multiply + add: data.images.scale

  int64_t margin() const { return (kernels.size(1) - 1) / 2; }
  // The same on `device`; from pinned memory the copies are queued on the
  // current stream, not waited for.
  DeferredDegradation to(const torch::Device& device, bool non_blocking) const;
  DeferredDegradation pinned() const;
  // Its tensors, for the caching allocator's record_stream.
  std::vector<torch::Tensor> tensors() const { return {windows, kernels, noise_sigmas, noise_keys, brightness}; }
  // The batch's inputs, [N, C, H, W] float32, on the tensors' device.
  torch::Tensor finish() const;
};

// counter_normal(keys[n], i) for every value i of a [C, H, W] sample whose
// values counter_normal counts in PixelWindow's order (row, column,
// channel): [N, C, H, W] float64, on the keys' device.
torch::Tensor counter_normals(const torch::Tensor& keys, int64_t channels, int64_t height, int64_t width);

}  // namespace trainer
