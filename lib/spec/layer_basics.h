#pragma once
// What every layer kind of spec/layer_kinds.h is made of: the kind tag, the
// shape and mask rules each declares, where its checks report, and the keys
// that layers with a kernel share. LayerSpec (spec/layer_spec.h) holds one
// kind's entry with the keys of the graph.
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

struct LayerSpec;  // a residual block's entry holds lists of them

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
  kLstm, kGru, kPositionalEmbedding, kMultiHeadAttention, kTransformerEncoder,
  // Written by the user in PyTorch.
  kTorchScript
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
  kKeepsSequences,  // passes it on when it returns sequences (lstm, gru: their `return_sequences`)
  kFromMaskZero,    // starts one when its `mask_zero` is set (embedding)
  kAnyInput,        // merges and residual blocks: masked when an input is
};

// Where a kind's check() reports: `key` is under the layer's path.
class LayerProblems {
 public:
  virtual ~LayerProblems() = default;
  // "model.layers[2].KEY: WHAT"
  virtual void bad(const std::string& key, const std::string& what) = 0;
  // "model.layers[2]: missing required key 'KEY'"
  virtual void missing(const std::string& key) = 0;
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

// The keys of the layers with a kernel and a bias: initialisers, penalty.
// Such a kind derives from it, so that its keys are its members.
struct KernelKeys {
  Initializer kernel_initializer = Initializer::kDefault;
  Initializer bias_initializer = Initializer::kDefault;
  WeightRegularizer kernel_regularizer;

  template <class V> void kernel_fields(V& v) {
    v("kernel_initializer", kernel_initializer,
      "glorot_uniform, he_normal, he_uniform, orthogonal, zeros, ones, pytorch (LibTorch's), or default "
      "(model.init).");
    v("bias_initializer", bias_initializer, "zeros, ones, pytorch, or default (model.init: keras zeros).");
    v("kernel_regularizer", kernel_regularizer,
      "{l1: a, l2: b}: adds a * sum(|kernel|) + b * sum(kernel^2) to the loss (training and validation), as Keras.");
  }
  void check_kernel_fields(LayerProblems& p) const {
    if (bias_initializer != Initializer::kDefault && bias_initializer != Initializer::kZeros &&
        bias_initializer != Initializer::kOnes && bias_initializer != Initializer::kPytorch)
      p.bad("bias_initializer", "a bias takes zeros, ones, pytorch or default");
  }
  // `trainer config` leaves them out at their defaults, so that the files of
  // runs written before they existed read as before.
  bool is_quiet_default(const std::string& key) const {
    return (key == "kernel_initializer" && kernel_initializer == Initializer::kDefault) ||
           (key == "bias_initializer" && bias_initializer == Initializer::kDefault) ||
           (key == "kernel_regularizer" && !kernel_regularizer.any());
  }
};

// Sizes given for `rank` spatial dimensions: one number, or one per dimension.
inline void check_dims(const Dims& dims, size_t rank, const std::string& key, LayerProblems& problems) {
  if (dims.empty() || dims.size() == 1 || dims.size() == rank) return;
  problems.bad(key, "expected 1 or " + std::to_string(rank) + " sizes, got " + std::to_string(dims.size()));
}

// The check of a layer's output size given as a number or a keyword of the data.
inline bool is_positive_size(const SizeRef& size) { return !size.is_keyword() && size.value >= 1; }

}  // namespace trainer
