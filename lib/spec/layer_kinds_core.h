#pragma once
// The layer kinds of the first models: embeddings, convolutions, pooling,
// dense layers and the simple per-element layers. See spec/layer_kinds.h.
#include <optional>
#include <string>
#include <vector>

#include "spec/layer_basics.h"

namespace trainer {

struct EmbeddingLayer {
  static constexpr LayerKind kind = LayerKind::kEmbedding;
  static constexpr const char* name = "embedding";
  static constexpr LayerInput input = LayerInput::kTokens;
  static constexpr MaskRule mask = MaskRule::kFromMaskZero;
  SizeRef input_dim = SizeRef::from("vocabulary");
  SizeRef output_dim = SizeRef::of(0);
  bool mask_zero = false;

  template <class V> void fields(V& v) {
    v("input_dim", input_dim,
      "Rows: a number, or 'vocabulary' (from the data). A number below the data's vocabulary is a config error "
      "naming both, before the run directory is made.");
    v("output_dim", output_dim, "Width of each embedding vector.");
    v("mask_zero", mask_zero, "Token 0 is padding: lstm, gru, attention and global pooling skip it (Keras).");
  }
  void check(LayerProblems& p) const {
    if (input_dim.keyword == "classes") p.bad("input_dim", "expected a positive integer or 'vocabulary'");
    if (!is_positive_size(output_dim)) p.bad("output_dim", "expected a positive integer");
  }
};

// The keys convolutions and depthwise convolutions share.
struct ConvKeys : KernelKeys {
  Dims kernel_size;
  Dims strides;
  PaddingSpec padding;
  Dims dilation_rate;
  Activation activation = Activation::kLinear;
  bool use_bias = true;

  template <class V> void window_fields(V& v) {
    v("kernel_size", kernel_size, "Kernel size: n or [h, w].");
    v("strides", strides, "Strides; default 1.");
    v("padding", padding, "valid, same, or a number of zeros on each side.");
  }
  template <class V> void dilation_field(V& v) {
    v("dilation_rate", dilation_rate, "Dilation of the kernel; default 1.");
  }
  template <class V> void output_fields(V& v) {
    v("activation", activation, "Activation applied to the output.");
    v("use_bias", use_bias, "Add a bias.");
    kernel_fields(v);
  }
  void check_window(size_t rank, LayerProblems& p) const {
    check_kernel_fields(p);
    if (kernel_size.empty()) p.missing("kernel_size");
    check_dims(kernel_size, rank, "kernel_size", p);
    check_dims(strides, rank, "strides", p);
    check_dims(dilation_rate, rank, "dilation_rate", p);
  }
};

template <LayerKind K, size_t Rank>
struct ConvLayer : ConvKeys {
  static constexpr LayerKind kind = K;
  static constexpr const char* name = Rank == 1 ? "conv1d" : "conv2d";
  static constexpr LayerInput input = Rank == 1 ? LayerInput::kSpatial1d : LayerInput::kSpatial2d;
  static constexpr MaskRule mask = MaskRule::kDrops;
  static constexpr size_t rank = Rank;
  SizeRef filters = SizeRef::of(0);
  int64_t groups = 1;

  template <class V> void fields(V& v) {
    v("filters", filters, "Output channels.");
    window_fields(v);
    dilation_field(v);
    v("groups", groups, "Split the channels into this many groups, each convolved on its own.", at_least(1));
    output_fields(v);
  }
  void check(LayerProblems& p) const {
    if (!is_positive_size(filters)) p.bad("filters", "expected a positive integer");
    else if (filters.value % groups != 0) p.bad("groups", "must divide filters (" + std::to_string(filters.value) + ")");
    check_window(Rank, p);
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
  Dims pool_size{2};
  Dims strides;
  PaddingSpec padding;

  template <class V> void fields(V& v) {
    v("pool_size", pool_size, "Window size: n or [h, w].");
    v("strides", strides, "Strides; default pool_size.");
    v("padding", padding, "valid or same.");
  }
  void check(LayerProblems& p) const {
    check_dims(pool_size, Rank, "pool_size", p);
    check_dims(strides, Rank, "strides", p);
    if (padding.mode == ConvPadding::kExplicit) p.bad("padding", "pooling takes valid or same");
  }
};

// The kinds that take no keys of their own.
struct NoKeys {
  template <class V> void fields(V&) {}
  void check(LayerProblems&) const {}
};

struct GlobalAvgPoolLayer : NoKeys {
  static constexpr LayerKind kind = LayerKind::kGlobalAvgPool;
  static constexpr const char* name = "global_avgpool";
  static constexpr LayerInput input = LayerInput::kSpatial;
  static constexpr MaskRule mask = MaskRule::kDrops;
};

struct FlattenLayer : NoKeys {
  static constexpr LayerKind kind = LayerKind::kFlatten;
  static constexpr const char* name = "flatten";
  static constexpr LayerInput input = LayerInput::kAny;
  static constexpr MaskRule mask = MaskRule::kDrops;
};

// Keras Reshape and Permute. They work on trainer's dimension order, the one
// the summary prints: channels first, (None, channels, height, width).
struct ReshapeLayer {
  static constexpr LayerKind kind = LayerKind::kReshape;
  static constexpr const char* name = "reshape";
  static constexpr LayerInput input = LayerInput::kAny;
  static constexpr MaskRule mask = MaskRule::kDrops;
  TargetShape target_shape;

  template <class V> void fields(V& v) {
    v("target_shape", target_shape, "The sizes after the batch dimension; one may be -1, inferred.");
  }
  void check(LayerProblems& p) const {
    if (target_shape.sizes.empty()) p.missing("target_shape");
  }
};

struct PermuteLayer {
  static constexpr LayerKind kind = LayerKind::kPermute;
  static constexpr const char* name = "permute";
  static constexpr LayerInput input = LayerInput::kAny;
  static constexpr MaskRule mask = MaskRule::kDrops;
  Dims dims;

  template <class V> void fields(V& v) {
    v("dims", dims, "The new order of the dimensions after the batch's, counted from 1: [2, 1] swaps two.");
  }
  void check(LayerProblems& p) const {
    if (dims.empty()) return p.missing("dims");
    std::vector<bool> seen(dims.size() + 1, false);
    for (int64_t d : dims) {
      if (d > static_cast<int64_t>(dims.size()) || seen[static_cast<size_t>(d)])
        return p.bad("dims", "expected each of 1 to " + std::to_string(dims.size()) + " once");
      seen[static_cast<size_t>(d)] = true;
    }
  }
};

struct DenseLayer : KernelKeys {
  static constexpr LayerKind kind = LayerKind::kDense;
  static constexpr const char* name = "dense";
  static constexpr LayerInput input = LayerInput::kFlat;
  static constexpr MaskRule mask = MaskRule::kDrops;
  SizeRef units = SizeRef::of(0);
  Activation activation = Activation::kLinear;
  bool use_bias = true;

  template <class V> void fields(V& v) {
    v("units", units, "Outputs: a number, or 'classes' (from the data).");
    v("activation", activation, "Activation; softmax on the output layer pairs with the "
                                "cross-entropy loss (computed stably).");
    v("use_bias", use_bias, "Add a bias.");
    kernel_fields(v);
  }
  void check(LayerProblems& p) const {
    check_kernel_fields(p);
    if (units.keyword == "vocabulary" || (!units.is_keyword() && units.value < 1))
      p.bad("units", "expected a positive integer or 'classes'");
  }
};

struct DropoutLayer {
  static constexpr LayerKind kind = LayerKind::kDropout;
  static constexpr const char* name = "dropout";
  static constexpr LayerInput input = LayerInput::kAny;
  static constexpr MaskRule mask = MaskRule::kKeeps;
  double rate = 0.5;

  template <class V> void fields(V& v) {
    v("rate", rate, "Fraction of inputs dropped while training.", unit_interval());
  }
  void check(LayerProblems&) const {}
};

struct BatchNormLayer {
  static constexpr LayerKind kind = LayerKind::kBatchNorm;
  static constexpr const char* name = "batchnorm";
  static constexpr LayerInput input = LayerInput::kAny;
  static constexpr MaskRule mask = MaskRule::kKeeps;
  double momentum = 0.99;
  double epsilon = 1e-3;

  template <class V> void fields(V& v) {
    v("momentum", momentum, "Keras momentum of the running statistics.", unit_interval());
    v("epsilon", epsilon, "Added to the variance.", positive());
  }
  void check(LayerProblems&) const {}
};

struct ActivationLayer {
  static constexpr LayerKind kind = LayerKind::kActivation;
  static constexpr const char* name = "activation";
  static constexpr LayerInput input = LayerInput::kAny;
  static constexpr MaskRule mask = MaskRule::kKeeps;
  Activation activation = Activation::kLinear;
  std::optional<double> alpha;

  template <class V> void fields(V& v) {
    v("activation", activation, "The activation.");
    v("alpha", alpha, "leaky_relu: slope below 0 (default 0.2); elu: scale below 0 (default 1).");
  }
  void check(LayerProblems& p) const {
    if (alpha && activation != Activation::kLeakyRelu && activation != Activation::kElu)
      p.bad("alpha", "only leaky_relu and elu take alpha");
  }
};

}  // namespace trainer
