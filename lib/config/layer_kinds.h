#pragma once
// Every layer kind of `model.layers`, each defined once: its YAML name, the
// keys it takes (`fields`, walked by the reader, the writer and the config
// reference), what it checks before any tensor exists (`check`) and its shape
// rule (`input`: what it must be given). The one other thing a kind needs is
// its builder, an overload of `build` in lib/models/model.cpp chosen by the
// kind's type: `with_layer_kind` dispatches every use through `LayerKinds`,
// so a kind added here without a builder does not compile.
//
// Torch-free: validation and `trainer config` stay so.
#include <array>
#include <cstdint>
#include <string>
#include <tuple>
#include <utility>

#include "config/checks.h"
#include "config/enum_names.h"
#include "config/enums.h"
#include "config/field_types.h"

namespace trainer {

enum class LayerKind {
  kEmbedding, kConv1d, kConv2d, kMaxPool1d, kMaxPool2d, kAvgPool1d, kAvgPool2d,
  kGlobalAvgPool, kFlatten, kDense, kDropout, kBatchNorm, kActivation
};

// One layer of the sequential model: the union of every kind's keys. Which
// keys a layer takes depends on its type; the others are errors.
struct LayerSpec {
  LayerKind type = LayerKind::kDense;
  SizeRef units = SizeRef::of(0);
  SizeRef input_dim = SizeRef::from("vocabulary");
  Dims kernel_size;
  Dims strides;
  Dims pool_size{2};
  PaddingSpec padding;
  Activation activation = Activation::kLinear;
  bool use_bias = true;
  double rate = 0.5;
  double momentum = 0.99;
  double epsilon = 1e-3;

  template <class V> void visit_fields(V& v);
};

// What a layer must be given, checked by the builder before it builds.
enum class LayerInput {
  kAny,
  kTokens,          // integer tokens, (None, length)
  kFlat,            // (None, features)
  kSpatial,         // (None, channels, one or more spatial dimensions)
  kSpatial1d,       // (None, channels, length)
  kSpatial2d,       // (None, channels, height, width)
};

// Where check() reports: `key` is under the layer's path.
class LayerProblems {
 public:
  virtual ~LayerProblems() = default;
  // "model.layers[2].KEY: WHAT"
  virtual void bad(const std::string& key, const std::string& what) = 0;
  // "model.layers[2]: missing required key 'KEY'"
  virtual void missing(const std::string& key) = 0;
};

// Sizes given for `rank` spatial dimensions: one number, or one per dimension.
inline void check_dims(const Dims& dims, size_t rank, const std::string& key, LayerProblems& problems) {
  if (dims.empty() || dims.size() == 1 || dims.size() == rank) return;
  problems.bad(key, "expected 1 or " + std::to_string(rank) + " sizes, got " + std::to_string(dims.size()));
}

struct EmbeddingLayer {
  static constexpr LayerKind kind = LayerKind::kEmbedding;
  static constexpr const char* name = "embedding";
  static constexpr LayerInput input = LayerInput::kTokens;
  template <class V> static void fields(LayerSpec& s, V& v) {
    v("input_dim", s.input_dim, "Rows: a number, or 'vocabulary' (from the data).");
    v("output_dim", s.units, "Width of each embedding vector.");
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
  static constexpr size_t rank = Rank;
  template <class V> static void fields(LayerSpec& s, V& v) {
    v("filters", s.units, "Output channels.");
    v("kernel_size", s.kernel_size, "Kernel size: n or [h, w].");
    v("strides", s.strides, "Strides; default 1.");
    v("padding", s.padding, "valid, same, or a number of zeros on each side.");
    v("activation", s.activation, "Activation applied to the output.");
    v("use_bias", s.use_bias, "Add a bias.");
  }
  static void check(const LayerSpec& s, LayerProblems& p) {
    if (s.units.is_keyword() || s.units.value < 1) p.bad("filters", "expected a positive integer");
    if (s.kernel_size.empty()) p.missing("kernel_size");
    check_dims(s.kernel_size, Rank, "kernel_size", p);
    check_dims(s.strides, Rank, "strides", p);
  }
};

template <LayerKind K, size_t Rank, bool Max>
struct PoolLayer {
  static constexpr LayerKind kind = K;
  static constexpr const char* name =
      Max ? (Rank == 1 ? "maxpool1d" : "maxpool2d") : (Rank == 1 ? "avgpool1d" : "avgpool2d");
  static constexpr LayerInput input = Rank == 1 ? LayerInput::kSpatial1d : LayerInput::kSpatial2d;
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
  template <class V> static void fields(LayerSpec&, V&) {}
  static void check(const LayerSpec&, LayerProblems&) {}
};

struct FlattenLayer {
  static constexpr LayerKind kind = LayerKind::kFlatten;
  static constexpr const char* name = "flatten";
  static constexpr LayerInput input = LayerInput::kAny;
  template <class V> static void fields(LayerSpec&, V&) {}
  static void check(const LayerSpec&, LayerProblems&) {}
};

struct DenseLayer {
  static constexpr LayerKind kind = LayerKind::kDense;
  static constexpr const char* name = "dense";
  static constexpr LayerInput input = LayerInput::kFlat;
  template <class V> static void fields(LayerSpec& s, V& v) {
    v("units", s.units, "Outputs: a number, or 'classes' (from the data).");
    v("activation", s.activation, "Activation; softmax on the output layer pairs with the "
                                   "cross-entropy loss (computed stably).");
    v("use_bias", s.use_bias, "Add a bias.");
  }
  static void check(const LayerSpec& s, LayerProblems& p) {
    if (s.units.keyword == "vocabulary" || (!s.units.is_keyword() && s.units.value < 1))
      p.bad("units", "expected a positive integer or 'classes'");
  }
};

struct DropoutLayer {
  static constexpr LayerKind kind = LayerKind::kDropout;
  static constexpr const char* name = "dropout";
  static constexpr LayerInput input = LayerInput::kAny;
  template <class V> static void fields(LayerSpec& s, V& v) {
    v("rate", s.rate, "Fraction of inputs dropped while training.", unit_interval());
  }
  static void check(const LayerSpec&, LayerProblems&) {}
};

struct BatchNormLayer {
  static constexpr LayerKind kind = LayerKind::kBatchNorm;
  static constexpr const char* name = "batchnorm";
  static constexpr LayerInput input = LayerInput::kAny;
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
  template <class V> static void fields(LayerSpec& s, V& v) { v("activation", s.activation, "The activation."); }
  static void check(const LayerSpec&, LayerProblems&) {}
};

// Every kind, in the order the config reference lists them.
using LayerKinds = std::tuple<EmbeddingLayer, ConvLayer<LayerKind::kConv1d, 1>, ConvLayer<LayerKind::kConv2d, 2>,
                              PoolLayer<LayerKind::kMaxPool1d, 1, true>, PoolLayer<LayerKind::kMaxPool2d, 2, true>,
                              PoolLayer<LayerKind::kAvgPool1d, 1, false>, PoolLayer<LayerKind::kAvgPool2d, 2, false>,
                              GlobalAvgPoolLayer, FlattenLayer, DenseLayer, DropoutLayer, BatchNormLayer,
                              ActivationLayer>;

namespace layer_kinds_detail {
template <class F, size_t... I>
void dispatch(LayerKind kind, F&& f, std::index_sequence<I...>) {
  // The first kind that matches runs; || stops the fold there.
  static_cast<void>(
      ((std::tuple_element_t<I, LayerKinds>::kind == kind ? (f(std::tuple_element_t<I, LayerKinds>{}), true) : false) ||
       ...));
}
template <size_t... I>
constexpr auto names(std::index_sequence<I...>) {
  using Entry = EnumName<LayerKind>;
  return std::array<Entry, sizeof...(I)>{
      Entry{std::tuple_element_t<I, LayerKinds>::kind, std::tuple_element_t<I, LayerKinds>::name}...};
}
}  // namespace layer_kinds_detail

// Calls f(Kind{}) with the entry of LayerKinds whose kind is `kind`.
template <class F>
void with_layer_kind(LayerKind kind, F&& f) {
  layer_kinds_detail::dispatch(kind, std::forward<F>(f), std::make_index_sequence<std::tuple_size_v<LayerKinds>>{});
}

template <> struct EnumTable<LayerKind> {
  static constexpr auto entries =
      layer_kinds_detail::names(std::make_index_sequence<std::tuple_size_v<LayerKinds>>{});
};

template <class V> void LayerSpec::visit_fields(V& v) {
  v.required("type", type, "Layer type.");
  with_layer_kind(type, [&](auto kind) { decltype(kind)::fields(*this, v); });
}

// The checks of `layer`'s kind.
inline void check_layer(const LayerSpec& layer, LayerProblems& problems) {
  with_layer_kind(layer.type, [&](auto kind) { decltype(kind)::check(layer, problems); });
}

}  // namespace trainer
