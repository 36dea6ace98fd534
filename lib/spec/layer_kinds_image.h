#pragma once
// The layer kinds of image-to-image models and their relatives: transposed
// and depthwise convolutions, upsampling, padding and cropping, the
// normalisations other than batchnorm, and regularisation by noise.
// See spec/layer_kinds.h.
#include <string>

#include "spec/layer_basics.h"
#include "spec/layer_kinds_core.h"

namespace trainer {

template <LayerKind K, size_t Rank>
struct ConvTransposeLayer : KernelKeys {
  static constexpr LayerKind kind = K;
  static constexpr const char* name = Rank == 1 ? "conv1d_transpose" : "conv2d_transpose";
  static constexpr LayerInput input = Rank == 1 ? LayerInput::kSpatial1d : LayerInput::kSpatial2d;
  static constexpr MaskRule mask = MaskRule::kDrops;
  static constexpr size_t rank = Rank;
  SizeRef filters = SizeRef::of(0);
  Dims kernel_size;
  Dims strides;
  PaddingSpec padding;
  Activation activation = Activation::kLinear;
  bool use_bias = true;

  template <class V> void fields(V& v) {
    v("filters", filters, "Output channels.");
    v("kernel_size", kernel_size, "Kernel size: n or [h, w].");
    v("strides", strides, "Strides (the upsampling factor); default 1.");
    v("padding", padding, "valid (output (in - 1) * stride + kernel) or same (output in * stride), as Keras.");
    v("activation", activation, "Activation applied to the output.");
    v("use_bias", use_bias, "Add a bias.");
    kernel_fields(v);
  }
  void check(LayerProblems& p) const {
    check_kernel_fields(p);
    if (!is_positive_size(filters)) p.bad("filters", "expected a positive integer");
    if (kernel_size.empty()) p.missing("kernel_size");
    check_dims(kernel_size, Rank, "kernel_size", p);
    check_dims(strides, Rank, "strides", p);
    if (padding.mode == ConvPadding::kExplicit) p.bad("padding", "expected valid or same");
  }
};

// One kernel per input channel (times depth_multiplier), as Keras DepthwiseConv2D.
struct DepthwiseConv2dLayer : ConvKeys {
  static constexpr LayerKind kind = LayerKind::kDepthwiseConv2d;
  static constexpr const char* name = "depthwise_conv2d";
  static constexpr LayerInput input = LayerInput::kSpatial2d;
  static constexpr MaskRule mask = MaskRule::kDrops;
  int64_t depth_multiplier = 1;

  template <class V> void fields(V& v) {
    window_fields(v);
    v("depth_multiplier", depth_multiplier, "Output channels per input channel.", at_least(1));
    dilation_field(v);
    output_fields(v);
  }
  void check(LayerProblems& p) const { check_window(2, p); }
};

struct Upsampling2dLayer {
  static constexpr LayerKind kind = LayerKind::kUpsampling2d;
  static constexpr const char* name = "upsampling2d";
  static constexpr LayerInput input = LayerInput::kSpatial2d;
  static constexpr MaskRule mask = MaskRule::kDrops;
  Dims size{2};
  Interpolation interpolation = Interpolation::kNearest;

  template <class V> void fields(V& v) {
    v("size", size, "Factor: n or [h, w].");
    v("interpolation", interpolation, "nearest or bilinear (half-pixel centres, as Keras).");
  }
  void check(LayerProblems& p) const {
    check_dims(size, 2, "size", p);
    if (interpolation == Interpolation::kArea) p.bad("interpolation", "upsampling2d takes nearest or bilinear");
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
  Amounts padding{{1}};

  template <class V> void fields(V& v) {
    v("padding", padding, "Rows and columns added: n, [height, width] or [top, bottom, left, right].");
  }
  void check(LayerProblems&) const {}
};

struct Cropping2dLayer {
  static constexpr LayerKind kind = LayerKind::kCropping2d;
  static constexpr const char* name = "cropping2d";
  static constexpr LayerInput input = LayerInput::kSpatial2d;
  static constexpr MaskRule mask = MaskRule::kDrops;
  Amounts cropping{{0}};

  template <class V> void fields(V& v) {
    v("cropping", cropping, "Rows and columns removed: n, [height, width] or [top, bottom, left, right].");
  }
  void check(LayerProblems&) const {}
};

// Maximum over every dimension after the channels: (None, C, ...) -> (None, C).
struct GlobalMaxPoolLayer : NoKeys {
  static constexpr LayerKind kind = LayerKind::kGlobalMaxPool;
  static constexpr const char* name = "global_maxpool";
  static constexpr LayerInput input = LayerInput::kSpatial;
  static constexpr MaskRule mask = MaskRule::kDrops;
};

// Normalised over the channels at every position (Keras LayerNormalization
// on channels-last data).
struct LayerNormLayer {
  static constexpr LayerKind kind = LayerKind::kLayerNorm;
  static constexpr const char* name = "layernorm";
  static constexpr LayerInput input = LayerInput::kAny;
  static constexpr MaskRule mask = MaskRule::kKeeps;
  double epsilon = 1e-3;
  bool center = true;
  bool scale = true;

  template <class V> void fields(V& v) {
    v("epsilon", epsilon, "Added to the variance.", positive());
    v("center", center, "Learn an offset (beta).");
    v("scale", scale, "Learn a factor (gamma).");
  }
  void check(LayerProblems&) const {}
};

// The keys groupnorm and instancenorm share.
struct ChannelNormKeys {
  double epsilon = 1e-3;
  bool center = true;
  bool scale = true;

  template <class V> void norm_fields(V& v) {
    v("epsilon", epsilon, "Added to the variance.", positive());
    v("center", center, "Learn an offset (beta) per channel.");
    v("scale", scale, "Learn a factor (gamma) per channel (PyTorch's InstanceNorm2d: both false).");
  }
  void check(LayerProblems& p) const {
    if (center != scale) p.bad("center", "center and scale are learned together or not at all");
  }
};

// Keras GroupNormalization.
struct GroupNormLayer : ChannelNormKeys {
  static constexpr LayerKind kind = LayerKind::kGroupNorm;
  static constexpr const char* name = "groupnorm";
  static constexpr LayerInput input = LayerInput::kSpatial;
  static constexpr MaskRule mask = MaskRule::kDrops;
  int64_t groups = 32;

  template <class V> void fields(V& v) {
    v("groups", groups, "Groups of channels.", at_least(1));
    norm_fields(v);
  }
};

// A group norm with one group per channel.
struct InstanceNormLayer : ChannelNormKeys {
  static constexpr LayerKind kind = LayerKind::kInstanceNorm;
  static constexpr const char* name = "instancenorm";
  static constexpr LayerInput input = LayerInput::kSpatial;
  static constexpr MaskRule mask = MaskRule::kDrops;

  template <class V> void fields(V& v) { norm_fields(v); }
};

// Whole channels dropped while training (Keras SpatialDropout1D/2D).
template <LayerKind K, size_t Rank>
struct SpatialDropoutLayer {
  static constexpr LayerKind kind = K;
  static constexpr const char* name = Rank == 1 ? "spatial_dropout1d" : "spatial_dropout2d";
  static constexpr LayerInput input = Rank == 1 ? LayerInput::kSpatial1d : LayerInput::kSpatial2d;
  static constexpr MaskRule mask = Rank == 1 ? MaskRule::kKeeps : MaskRule::kDrops;
  double rate = 0.5;

  template <class V> void fields(V& v) {
    v("rate", rate, "Fraction of channels dropped while training.", unit_interval());
  }
  void check(LayerProblems&) const {}
};

struct GaussianNoiseLayer {
  static constexpr LayerKind kind = LayerKind::kGaussianNoise;
  static constexpr const char* name = "gaussian_noise";
  static constexpr LayerInput input = LayerInput::kAny;
  static constexpr MaskRule mask = MaskRule::kKeeps;
  double stddev = 0.1;

  template <class V> void fields(V& v) {
    v("stddev", stddev, "Standard deviation of the noise added while training.", non_negative());
  }
  void check(LayerProblems&) const {}
};

}  // namespace trainer
