#pragma once
// The layer kinds of image-to-image models and their relatives: transposed
// and depthwise convolutions, upsampling, padding and cropping, the
// normalisations other than batchnorm, and regularisation by noise.
// See spec/layer_kinds.h.
#include <string>

#include "spec/checks.h"
#include "spec/layer_spec.h"

namespace trainer {

template <LayerKind K, size_t Rank>
struct ConvTransposeLayer {
  static constexpr LayerKind kind = K;
  static constexpr const char* name = Rank == 1 ? "conv1d_transpose" : "conv2d_transpose";
  static constexpr LayerInput input = Rank == 1 ? LayerInput::kSpatial1d : LayerInput::kSpatial2d;
  static constexpr MaskRule mask = MaskRule::kDrops;
  static constexpr size_t rank = Rank;
  template <class V> static void fields(LayerSpec& s, V& v) {
    v("filters", s.units, "Output channels.");
    v("kernel_size", s.kernel_size, "Kernel size: n or [h, w].");
    v("strides", s.strides, "Strides (the upsampling factor); default 1.");
    v("padding", s.padding, "valid (output (in - 1) * stride + kernel) or same (output in * stride), as Keras.");
    v("activation", s.activation, "Activation applied to the output.");
    v("use_bias", s.use_bias, "Add a bias.");
    kernel_fields(s, v);
  }
  static void check(const LayerSpec& s, LayerProblems& p) {
    check_kernel_fields(s, p);
    if (s.units.is_keyword() || s.units.value < 1) p.bad("filters", "expected a positive integer");
    if (s.kernel_size.empty()) p.missing("kernel_size");
    check_dims(s.kernel_size, Rank, "kernel_size", p);
    check_dims(s.strides, Rank, "strides", p);
    if (s.padding.mode == ConvPadding::kExplicit) p.bad("padding", "expected valid or same");
  }
};

// One kernel per input channel (times depth_multiplier), as Keras DepthwiseConv2D.
struct DepthwiseConv2dLayer {
  static constexpr LayerKind kind = LayerKind::kDepthwiseConv2d;
  static constexpr const char* name = "depthwise_conv2d";
  static constexpr LayerInput input = LayerInput::kSpatial2d;
  static constexpr MaskRule mask = MaskRule::kDrops;
  template <class V> static void fields(LayerSpec& s, V& v) {
    v("kernel_size", s.kernel_size, "Kernel size: n or [h, w].");
    v("strides", s.strides, "Strides; default 1.");
    v("padding", s.padding, "valid, same, or a number of zeros on each side.");
    v("depth_multiplier", s.depth_multiplier, "Output channels per input channel.", at_least(1));
    v("dilation_rate", s.dilation_rate, "Dilation of the kernel; default 1.");
    v("activation", s.activation, "Activation applied to the output.");
    v("use_bias", s.use_bias, "Add a bias.");
    kernel_fields(s, v);
  }
  static void check(const LayerSpec& s, LayerProblems& p) {
    check_kernel_fields(s, p);
    if (s.kernel_size.empty()) p.missing("kernel_size");
    check_dims(s.kernel_size, 2, "kernel_size", p);
    check_dims(s.strides, 2, "strides", p);
    check_dims(s.dilation_rate, 2, "dilation_rate", p);
  }
};

struct Upsampling2dLayer {
  static constexpr LayerKind kind = LayerKind::kUpsampling2d;
  static constexpr const char* name = "upsampling2d";
  static constexpr LayerInput input = LayerInput::kSpatial2d;
  static constexpr MaskRule mask = MaskRule::kDrops;
  template <class V> static void fields(LayerSpec& s, V& v) {
    v("size", s.size, "Factor: n or [h, w].");
    v("interpolation", s.interpolation, "nearest or bilinear (half-pixel centres, as Keras).");
  }
  static void check(const LayerSpec& s, LayerProblems& p) {
    check_dims(s.size, 2, "size", p);
    if (s.interpolation == Interpolation::kArea) p.bad("interpolation", "upsampling2d takes nearest or bilinear");
  }
};

// zero_padding2d, reflection_padding2d, replication_padding2d.
template <LayerKind K>
struct Padding2dLayer {
  static constexpr LayerKind kind = K;
  static constexpr const char* name = K == LayerKind::kZeroPadding2d         ? "zero_padding2d"
                                      : K == LayerKind::kReflectionPadding2d ? "reflection_padding2d"
                                                                             : "replication_padding2d";
  static constexpr LayerInput input = LayerInput::kSpatial2d;
  static constexpr MaskRule mask = MaskRule::kDrops;
  template <class V> static void fields(LayerSpec& s, V& v) {
    v("padding", s.padding_layer.padding, "Rows and columns added: n, [height, width] or [top, bottom, left, right].");
  }
  static void check(const LayerSpec&, LayerProblems&) {}
};

struct Cropping2dLayer {
  static constexpr LayerKind kind = LayerKind::kCropping2d;
  static constexpr const char* name = "cropping2d";
  static constexpr LayerInput input = LayerInput::kSpatial2d;
  static constexpr MaskRule mask = MaskRule::kDrops;
  template <class V> static void fields(LayerSpec& s, V& v) {
    v("cropping", s.cropping, "Rows and columns removed: n, [height, width] or [top, bottom, left, right].");
  }
  static void check(const LayerSpec&, LayerProblems&) {}
};

// Maximum over every dimension after the channels: (None, C, ...) -> (None, C).
struct GlobalMaxPoolLayer {
  static constexpr LayerKind kind = LayerKind::kGlobalMaxPool;
  static constexpr const char* name = "global_maxpool";
  static constexpr LayerInput input = LayerInput::kSpatial;
  static constexpr MaskRule mask = MaskRule::kDrops;
  template <class V> static void fields(LayerSpec&, V&) {}
  static void check(const LayerSpec&, LayerProblems&) {}
};

// Normalised over the channels at every position (Keras LayerNormalization
// on channels-last data).
struct LayerNormLayer {
  static constexpr LayerKind kind = LayerKind::kLayerNorm;
  static constexpr const char* name = "layernorm";
  static constexpr LayerInput input = LayerInput::kAny;
  static constexpr MaskRule mask = MaskRule::kKeeps;
  template <class V> static void fields(LayerSpec& s, V& v) {
    v("epsilon", s.epsilon, "Added to the variance.", positive());
    v("center", s.center, "Learn an offset (beta).");
    v("scale", s.scale, "Learn a factor (gamma).");
  }
  static void check(const LayerSpec&, LayerProblems&) {}
};

// groupnorm (Keras GroupNormalization) and instancenorm (one group per channel).
template <LayerKind K>
struct GroupNormLayer {
  static constexpr LayerKind kind = K;
  static constexpr const char* name = K == LayerKind::kGroupNorm ? "groupnorm" : "instancenorm";
  static constexpr LayerInput input = LayerInput::kSpatial;
  static constexpr MaskRule mask = MaskRule::kDrops;
  template <class V> static void fields(LayerSpec& s, V& v) {
    if constexpr (K == LayerKind::kGroupNorm) v("groups", s.group_norm.groups, "Groups of channels.", at_least(1));
    v("epsilon", s.epsilon, "Added to the variance.", positive());
    v("center", s.center, "Learn an offset (beta) per channel.");
    v("scale", s.scale, "Learn a factor (gamma) per channel (PyTorch's InstanceNorm2d: both false).");
  }
  static void check(const LayerSpec& s, LayerProblems& p) {
    if (s.center != s.scale) p.bad("center", "center and scale are learned together or not at all");
  }
};

// Whole channels dropped while training (Keras SpatialDropout1D/2D).
template <LayerKind K, size_t Rank>
struct SpatialDropoutLayer {
  static constexpr LayerKind kind = K;
  static constexpr const char* name = Rank == 1 ? "spatial_dropout1d" : "spatial_dropout2d";
  static constexpr LayerInput input = Rank == 1 ? LayerInput::kSpatial1d : LayerInput::kSpatial2d;
  static constexpr MaskRule mask = Rank == 1 ? MaskRule::kKeeps : MaskRule::kDrops;
  template <class V> static void fields(LayerSpec& s, V& v) {
    v("rate", s.rate, "Fraction of channels dropped while training.", unit_interval());
  }
  static void check(const LayerSpec&, LayerProblems&) {}
};

struct GaussianNoiseLayer {
  static constexpr LayerKind kind = LayerKind::kGaussianNoise;
  static constexpr const char* name = "gaussian_noise";
  static constexpr LayerInput input = LayerInput::kAny;
  static constexpr MaskRule mask = MaskRule::kKeeps;
  template <class V> static void fields(LayerSpec& s, V& v) {
    v("stddev", s.stddev, "Standard deviation of the noise added while training.", non_negative());
  }
  static void check(const LayerSpec&, LayerProblems&) {}
};

}  // namespace trainer
