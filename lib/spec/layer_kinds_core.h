#pragma once
// The layer kinds of the first models: embeddings, convolutions, pooling,
// dense layers and the simple per-element layers. See spec/layer_kinds.h.
#include <string>

#include "spec/checks.h"
#include "spec/layer_spec.h"

namespace trainer {

struct EmbeddingLayer {
  static constexpr LayerKind kind = LayerKind::kEmbedding;
  static constexpr const char* name = "embedding";
  static constexpr LayerInput input = LayerInput::kTokens;
  static constexpr MaskRule mask = MaskRule::kFromMaskZero;
  template <class V> static void fields(LayerSpec& s, V& v) {
    v("input_dim", s.input_dim, "Rows: a number, or 'vocabulary' (from the data).");
    v("output_dim", s.units, "Width of each embedding vector.");
    v("mask_zero", s.mask_zero, "Token 0 is padding: lstm, gru, attention and global pooling skip it (Keras).");
  }
  static void check(const LayerSpec& s, LayerProblems& p) {
    if (s.input_dim.keyword == "classes") p.bad("input_dim", "expected a positive integer or 'vocabulary'");
    if (s.units.is_keyword() || s.units.value < 1) p.bad("output_dim", "expected a positive integer");
  }
};

template <LayerKind K, size_t Rank>
struct ConvLayer {
  static constexpr LayerKind kind = K;
  static constexpr const char* name = Rank == 1 ? "conv1d" : "conv2d";
  static constexpr LayerInput input = Rank == 1 ? LayerInput::kSpatial1d : LayerInput::kSpatial2d;
  static constexpr MaskRule mask = MaskRule::kDrops;
  static constexpr size_t rank = Rank;
  template <class V> static void fields(LayerSpec& s, V& v) {
    v("filters", s.units, "Output channels.");
    v("kernel_size", s.kernel_size, "Kernel size: n or [h, w].");
    v("strides", s.strides, "Strides; default 1.");
    v("padding", s.padding, "valid, same, or a number of zeros on each side.");
    v("dilation_rate", s.dilation_rate, "Dilation of the kernel; default 1.");
    v("groups", s.groups, "Split the channels into this many groups, each convolved on its own.", at_least(1));
    v("activation", s.activation, "Activation applied to the output.");
    v("use_bias", s.use_bias, "Add a bias.");
    kernel_fields(s, v);
  }
  static void check(const LayerSpec& s, LayerProblems& p) {
    check_kernel_fields(s, p);
    if (s.units.is_keyword() || s.units.value < 1) p.bad("filters", "expected a positive integer");
    else if (s.units.value % s.groups != 0) p.bad("groups", "must divide filters (" + std::to_string(s.units.value) + ")");
    if (s.kernel_size.empty()) p.missing("kernel_size");
    check_dims(s.kernel_size, Rank, "kernel_size", p);
    check_dims(s.strides, Rank, "strides", p);
    check_dims(s.dilation_rate, Rank, "dilation_rate", p);
  }
};

template <LayerKind K, size_t Rank, bool Max>
struct PoolLayer {
  static constexpr LayerKind kind = K;
  static constexpr const char* name =
      Max ? (Rank == 1 ? "maxpool1d" : "maxpool2d") : (Rank == 1 ? "avgpool1d" : "avgpool2d");
  static constexpr LayerInput input = Rank == 1 ? LayerInput::kSpatial1d : LayerInput::kSpatial2d;
  static constexpr MaskRule mask = MaskRule::kDrops;
  static constexpr size_t rank = Rank;
  static constexpr bool is_max = Max;
  template <class V> static void fields(LayerSpec& s, V& v) {
    v("pool_size", s.pool_size, "Window size: n or [h, w].");
    v("strides", s.strides, "Strides; default pool_size.");
    v("padding", s.padding, "valid or same.");
  }
  static void check(const LayerSpec& s, LayerProblems& p) {
    check_dims(s.pool_size, Rank, "pool_size", p);
    check_dims(s.strides, Rank, "strides", p);
    if (s.padding.mode == ConvPadding::kExplicit) p.bad("padding", "pooling takes valid or same");
  }
};

struct GlobalAvgPoolLayer {
  static constexpr LayerKind kind = LayerKind::kGlobalAvgPool;
  static constexpr const char* name = "global_avgpool";
  static constexpr LayerInput input = LayerInput::kSpatial;
  static constexpr MaskRule mask = MaskRule::kDrops;
  template <class V> static void fields(LayerSpec&, V&) {}
  static void check(const LayerSpec&, LayerProblems&) {}
};

struct FlattenLayer {
  static constexpr LayerKind kind = LayerKind::kFlatten;
  static constexpr const char* name = "flatten";
  static constexpr LayerInput input = LayerInput::kAny;
  static constexpr MaskRule mask = MaskRule::kDrops;
  template <class V> static void fields(LayerSpec&, V&) {}
  static void check(const LayerSpec&, LayerProblems&) {}
};

// Keras Reshape and Permute. They work on trainer's dimension order, the one
// the summary prints: channels first, (None, channels, height, width).
struct ReshapeLayer {
  static constexpr LayerKind kind = LayerKind::kReshape;
  static constexpr const char* name = "reshape";
  static constexpr LayerInput input = LayerInput::kAny;
  static constexpr MaskRule mask = MaskRule::kDrops;
  template <class V> static void fields(LayerSpec& s, V& v) {
    v("target_shape", s.target_shape, "The sizes after the batch dimension; one may be -1, inferred.");
  }
  static void check(const LayerSpec& s, LayerProblems& p) {
    if (s.target_shape.sizes.empty()) p.missing("target_shape");
  }
};

struct PermuteLayer {
  static constexpr LayerKind kind = LayerKind::kPermute;
  static constexpr const char* name = "permute";
  static constexpr LayerInput input = LayerInput::kAny;
  static constexpr MaskRule mask = MaskRule::kDrops;
  template <class V> static void fields(LayerSpec& s, V& v) {
    v("dims", s.dims, "The new order of the dimensions after the batch's, counted from 1: [2, 1] swaps two.");
  }
  static void check(const LayerSpec& s, LayerProblems& p) {
    if (s.dims.empty()) return p.missing("dims");
    std::vector<bool> seen(s.dims.size() + 1, false);
    for (int64_t d : s.dims) {
      if (d > static_cast<int64_t>(s.dims.size()) || seen[static_cast<size_t>(d)])
        return p.bad("dims", "expected each of 1 to " + std::to_string(s.dims.size()) + " once");
      seen[static_cast<size_t>(d)] = true;
    }
  }
};

struct DenseLayer {
  static constexpr LayerKind kind = LayerKind::kDense;
  static constexpr const char* name = "dense";
  static constexpr LayerInput input = LayerInput::kFlat;
  static constexpr MaskRule mask = MaskRule::kDrops;
  template <class V> static void fields(LayerSpec& s, V& v) {
    v("units", s.units, "Outputs: a number, or 'classes' (from the data).");
    v("activation", s.activation, "Activation; softmax on the output layer pairs with the "
                                   "cross-entropy loss (computed stably).");
    v("use_bias", s.use_bias, "Add a bias.");
    kernel_fields(s, v);
  }
  static void check(const LayerSpec& s, LayerProblems& p) {
    check_kernel_fields(s, p);
    if (s.units.keyword == "vocabulary" || (!s.units.is_keyword() && s.units.value < 1))
      p.bad("units", "expected a positive integer or 'classes'");
  }
};

struct DropoutLayer {
  static constexpr LayerKind kind = LayerKind::kDropout;
  static constexpr const char* name = "dropout";
  static constexpr LayerInput input = LayerInput::kAny;
  static constexpr MaskRule mask = MaskRule::kKeeps;
  template <class V> static void fields(LayerSpec& s, V& v) {
    v("rate", s.rate, "Fraction of inputs dropped while training.", unit_interval());
  }
  static void check(const LayerSpec&, LayerProblems&) {}
};

struct BatchNormLayer {
  static constexpr LayerKind kind = LayerKind::kBatchNorm;
  static constexpr const char* name = "batchnorm";
  static constexpr LayerInput input = LayerInput::kAny;
  static constexpr MaskRule mask = MaskRule::kKeeps;
  template <class V> static void fields(LayerSpec& s, V& v) {
    v("momentum", s.momentum, "Keras momentum of the running statistics.", unit_interval());
    v("epsilon", s.epsilon, "Added to the variance.", positive());
  }
  static void check(const LayerSpec&, LayerProblems&) {}
};

struct ActivationLayer {
  static constexpr LayerKind kind = LayerKind::kActivation;
  static constexpr const char* name = "activation";
  static constexpr LayerInput input = LayerInput::kAny;
  static constexpr MaskRule mask = MaskRule::kKeeps;
  template <class V> static void fields(LayerSpec& s, V& v) {
    v("activation", s.activation, "The activation.");
    v("alpha", s.alpha, "leaky_relu: slope below 0 (default 0.2); elu: scale below 0 (default 1).");
  }
  static void check(const LayerSpec& s, LayerProblems& p) {
    if (s.alpha && s.activation != Activation::kLeakyRelu && s.activation != Activation::kElu)
      p.bad("alpha", "only leaky_relu and elu take alpha");
  }
};

}  // namespace trainer
