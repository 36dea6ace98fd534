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
#include <string>
#include <tuple>
#include <utility>

#include "spec/enum_names.h"
#include "spec/kind_table.h"
#include "spec/layer_basics.h"
#include "spec/layer_kinds_core.h"
#include "spec/layer_kinds_graph.h"
#include "spec/layer_kinds_image.h"
#include "spec/layer_kinds_scripted.h"
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
    MultiHeadAttentionLayer, TransformerEncoderLayer, TorchScriptLayer>;

// One kind's entry, keys and all: what a LayerSpec holds.
using LayerKeys = VariantOf<LayerKinds>::type;

// Calls f(Kind{}) with a default entry of the kind `kind`.
template <class F>
void with_layer_kind(LayerKind kind, F&& f) {
  with_kind<LayerKinds>(kind, std::forward<F>(f));
}

template <> struct EnumTable<LayerKind> {
  static constexpr auto entries = kind_names<LayerKind, LayerKinds>();
};

}  // namespace trainer
