#pragma once
// Every layer kind of `model.layers`, each defined once as a struct that
// owns its keys: its YAML name, its keys as members named as the keys, with
// default, check and doc (`fields`, walked by the reader, the writer and the
// config reference), what it checks before any tensor exists (`check`), its
// shape rule (`input`: what it must be given) and what it does with a
// sequence's mask (`mask`). A LayerSpec (spec/layer_spec.h) holds one of
// them. The one other thing a kind needs is its builder, an overload of
// `build` in lib/models/graph_builder.h chosen by the kind's type: every
// build dispatches through `LayerKinds`, so a kind added here without a
// builder does not compile.
//
// Torch-free: validation and `trainer config` stay so.
#include <array>
#include <string>
#include <tuple>
#include <utility>
#include <variant>

#include "spec/enum_names.h"
#include "spec/layer_basics.h"
#include "spec/layer_kinds_core.h"
#include "spec/layer_kinds_graph.h"
#include "spec/layer_kinds_image.h"
#include "spec/layer_kinds_sequence.h"

namespace trainer {

// Every kind, in the order the config reference lists them.
using LayerKinds = std::tuple<
    EmbeddingLayer, ConvLayer<LayerKind::kConv1d, 1>, ConvLayer<LayerKind::kConv2d, 2>,
    ConvTransposeLayer<LayerKind::kConv1dTranspose, 1>, ConvTransposeLayer<LayerKind::kConv2dTranspose, 2>,
    DepthwiseConv2dLayer, PoolLayer<LayerKind::kMaxPool1d, 1, true>, PoolLayer<LayerKind::kMaxPool2d, 2, true>,
    PoolLayer<LayerKind::kAvgPool1d, 1, false>, PoolLayer<LayerKind::kAvgPool2d, 2, false>, GlobalAvgPoolLayer,
    GlobalMaxPoolLayer, Upsampling2dLayer, Padding2dLayer<LayerKind::kZeroPadding2d>,
    Padding2dLayer<LayerKind::kReflectionPadding2d>, Padding2dLayer<LayerKind::kReplicationPadding2d>,
    Cropping2dLayer, FlattenLayer, ReshapeLayer, PermuteLayer, DenseLayer, DropoutLayer, SpatialDropoutLayer<LayerKind::kSpatialDropout1d, 1>,
    SpatialDropoutLayer<LayerKind::kSpatialDropout2d, 2>, GaussianNoiseLayer, BatchNormLayer, LayerNormLayer,
    GroupNormLayer, InstanceNormLayer, ActivationLayer,
    RescalingLayer, ResidualLayer, ElementwiseMergeLayer<LayerKind::kAdd>,
    ElementwiseMergeLayer<LayerKind::kMultiply>, ElementwiseMergeLayer<LayerKind::kAverage>, ConcatenateLayer,
    RecurrentLayer<LayerKind::kLstm>, RecurrentLayer<LayerKind::kGru>, PositionalEmbeddingLayer,
    MultiHeadAttentionLayer, TransformerEncoderLayer>;

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
template <class Tuple> struct VariantOf;
template <class... Kinds> struct VariantOf<std::tuple<Kinds...>> {
  using type = std::variant<Kinds...>;
};
}  // namespace layer_kinds_detail

// One kind's entry, keys and all: what a LayerSpec holds.
using LayerKeys = layer_kinds_detail::VariantOf<LayerKinds>::type;

// Calls f(Kind{}) with a default entry of the kind `kind`.
template <class F>
void with_layer_kind(LayerKind kind, F&& f) {
  layer_kinds_detail::dispatch(kind, std::forward<F>(f), std::make_index_sequence<std::tuple_size_v<LayerKinds>>{});
}

template <> struct EnumTable<LayerKind> {
  static constexpr auto entries =
      layer_kinds_detail::names(std::make_index_sequence<std::tuple_size_v<LayerKinds>>{});
};

}  // namespace trainer
