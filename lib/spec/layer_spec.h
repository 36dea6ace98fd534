#pragma once
// One entry of `model.layers`: the union of every layer kind's keys, and what
// kinds share (the shape rule a kind declares, where its checks report).
// The kinds themselves are in spec/layer_kinds.h.
//
// Torch-free: validation and `trainer config` stay so.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "spec/checks.h"
#include "spec/enums.h"
#include "spec/field_types.h"

namespace trainer {

enum class LayerKind {
  kEmbedding, kConv1d, kConv2d, kMaxPool1d, kMaxPool2d, kAvgPool1d, kAvgPool2d,
  kGlobalAvgPool, kFlatten, kReshape, kPermute, kDense, kDropout, kBatchNorm, kActivation,
  // Graph structure.
  kResidual, kAdd, kMultiply, kAverage, kConcatenate, kRescaling,
  // Images.
  kConv1dTranspose, kConv2dTranspose, kDepthwiseConv2d, kUpsampling2d, kZeroPadding2d, kReflectionPadding2d,
  kReplicationPadding2d, kCropping2d, kGlobalMaxPool,
  // Normalisation and regularisation.
  kLayerNorm, kGroupNorm, kInstanceNorm, kSpatialDropout1d, kSpatialDropout2d, kGaussianNoise,
  // Sequences.
  kLstm, kGru, kPositionalEmbedding, kMultiHeadAttention, kTransformerEncoder
};

// A penalty on a layer's kernel added to the loss, as Keras's
// kernel_regularizer: l1 * sum(|w|) + l2 * sum(w^2), in training and
// validation losses alike.
struct WeightRegularizer {
  double l1 = 0;
  double l2 = 0;

  bool any() const { return l1 > 0 || l2 > 0; }
  template <class V> void visit_fields(V& v) {
    v("l1", l1, "Weight of the sum of absolute kernel values.", non_negative());
    v("l2", l2, "Weight of the sum of squared kernel values (Keras's l2; the gradient is 2 * l2 * w).",
      non_negative());
  }
};

// Keys whose names other kinds use with another meaning (conv's `padding`
// and `groups`): the kinds below keep theirs under their own name, so that
// each member is named as its key.
struct PaddingLayerKeys {
  Amounts padding{{1}};
};
struct GroupNormKeys {
  int64_t groups = 32;
};

struct LayerSpec {
  LayerKind type = LayerKind::kDense;

  // Keys every kind takes: the graph (see docs/models.md).
  std::string name;                 // names this layer's output tensor
  std::vector<std::string> inputs;  // tensors read instead of the previous output
  int64_t repeat = 1;               // this many copies in a row, each with its own weights
  std::vector<LayerSpec> layers;    // residual: the block's body
  std::vector<LayerSpec> shortcut;  // residual: the shortcut path (default: the identity)

  SizeRef units = SizeRef::of(0);
  SizeRef input_dim = SizeRef::from("vocabulary");
  Dims kernel_size;
  Dims strides;
  Dims dilation_rate;
  int64_t groups = 1;
  int64_t depth_multiplier = 1;
  Dims pool_size{2};
  PaddingSpec padding;
  PaddingLayerKeys padding_layer;
  Amounts cropping{{0}};
  TargetShape target_shape;
  Dims dims;
  Dims size{2};
  Interpolation interpolation = Interpolation::kNearest;
  Activation activation = Activation::kLinear;
  std::optional<double> alpha;
  bool use_bias = true;
  Initializer kernel_initializer = Initializer::kDefault;
  Initializer bias_initializer = Initializer::kDefault;
  Initializer recurrent_initializer = Initializer::kDefault;
  WeightRegularizer kernel_regularizer;
  double rate = 0.5;
  double stddev = 0.1;
  double momentum = 0.99;
  double epsilon = 1e-3;
  GroupNormKeys group_norm;
  bool center = true;
  bool scale = true;
  int64_t axis = 1;
  double rescale = 1.0;
  double offset = 0.0;
  bool mask_zero = false;
  bool return_sequences = false;
  bool bidirectional = false;
  double dropout = 0.0;
  int64_t num_heads = 2;
  int64_t key_dim = 0;
  int64_t intermediate_dim = 0;
  bool causal = false;

  // Where the layer was written ("exp.yaml:12:5"), set by the reader, so that
  // errors found when the model is built can point at it. Not a key.
  std::string source_location;

  template <class V> void visit_fields(V& v);
  // For a key that `type` does not take: which kinds do, and what `type`
  // takes instead; "" when no kind takes it (spec/layer_kinds.cpp).
  std::string foreign_key_note(const std::string& key) const;
  // Whether `trainer config` leaves `key` out: the graph keys while they hold
  // their defaults, so the files of chain models read as before graphs existed
  // (and runs written then resume without a difference).
  bool is_quiet_default(const std::string& key) const {
    return (key == "name" && name.empty()) || (key == "inputs" && inputs.empty()) ||
           (key == "repeat" && repeat == 1) || (key == "shortcut" && shortcut.empty()) ||
           (key == "kernel_initializer" && kernel_initializer == Initializer::kDefault) ||
           (key == "bias_initializer" && bias_initializer == Initializer::kDefault) ||
           (key == "recurrent_initializer" && recurrent_initializer == Initializer::kDefault) ||
           (key == "kernel_regularizer" && !kernel_regularizer.any());
  }
};

// What a layer must be given, checked by the builder before it builds.
enum class LayerInput {
  kAny,
  kTokens,          // integer tokens, (None, length)
  kFlat,            // (None, features)
  kSpatial,         // (None, channels, one or more spatial dimensions)
  kSpatial1d,       // (None, channels, length)
  kSpatial2d,       // (None, channels, height, width)
  kSequence,        // (None, features, length): an embedding's output, or a sequence layer's
  kMerge,           // two or more tensors (the merge layers)
  kBlock,           // the residual block: its layers decide
};

// What a layer does with its input's padding mask (which steps of a
// sequence are padding), as Keras's layers that support masking do. Every
// kind must say: the builder reads it.
enum class MaskRule {
  kDrops,           // its output carries no mask
  kKeeps,           // passes it on: it keeps the steps apart
  kKeepsSequences,  // passes it on when it returns sequences (lstm, gru)
  kFromMaskZero,    // starts one when mask_zero is set (embedding)
  kAnyInput,        // merges and residual blocks: masked when an input is
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

// The keys of the layers with a kernel and a bias: initialisers, penalty.
template <class V>
void kernel_fields(LayerSpec& s, V& v) {
  v("kernel_initializer", s.kernel_initializer,
    "glorot_uniform, he_normal, he_uniform, orthogonal, zeros, ones, pytorch (LibTorch's), or default "
    "(model.init).");
  v("bias_initializer", s.bias_initializer, "zeros, ones, pytorch, or default (model.init: keras zeros).");
  v("kernel_regularizer", s.kernel_regularizer,
    "{l1: a, l2: b}: adds a * sum(|kernel|) + b * sum(kernel^2) to the loss (training and validation), as Keras.");
}

inline void check_kernel_fields(const LayerSpec& s, LayerProblems& p) {
  if (s.bias_initializer != Initializer::kDefault && s.bias_initializer != Initializer::kZeros &&
      s.bias_initializer != Initializer::kOnes && s.bias_initializer != Initializer::kPytorch)
    p.bad("bias_initializer", "a bias takes zeros, ones, pytorch or default");
}

// Sizes given for `rank` spatial dimensions: one number, or one per dimension.
inline void check_dims(const Dims& dims, size_t rank, const std::string& key, LayerProblems& problems) {
  if (dims.empty() || dims.size() == 1 || dims.size() == rank) return;
  problems.bad(key, "expected 1 or " + std::to_string(rank) + " sizes, got " + std::to_string(dims.size()));
}

}  // namespace trainer
