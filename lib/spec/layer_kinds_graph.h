#pragma once
// The layer kinds that shape the graph: the residual block and the merges
// of named tensors (Keras's Add, Multiply, Average, Concatenate), and
// Rescaling, which makes a global skip `(input + x) / 2` expressible.
// A merge reads two or more tensors (`inputs`, a key of every layer; see
// spec/layer_spec.h): validate_graph checks that for every kMerge kind.
// See spec/layer_kinds.h and docs/models.md.
#include <string>
#include <vector>

#include "spec/layer_basics.h"

namespace trainer {

// `layers` applied to the input, plus `shortcut` applied to it (or the input
// itself), then the activation: ResNet's block.
struct ResidualLayer {
  static constexpr LayerKind kind = LayerKind::kResidual;
  static constexpr const char* name = "residual";
  static constexpr LayerInput input = LayerInput::kBlock;
  static constexpr MaskRule mask = MaskRule::kAnyInput;
  std::vector<LayerSpec> layers;    // complete once spec/layer_spec.h has defined LayerSpec
  std::vector<LayerSpec> shortcut;
  Activation activation = Activation::kLinear;

  template <class V> void fields(V& v) {
    v.required("layers", layers, "The block's body; its output is added to the shortcut's.");
    v("shortcut", shortcut, "Layers on the shortcut path (e.g. a 1x1 conv and a batchnorm where the "
                            "body changes the shape); default: the input itself.");
    v("activation", activation, "Activation applied after the addition.");
  }
  void check(LayerProblems& p) const;  // in spec/layer_spec.h, where LayerSpec is complete
  // The files of chain models read as before blocks had a shortcut.
  bool is_quiet_default(const std::string& key) const;
};

// Element-wise merges of two or more tensors of one shape.
template <LayerKind K>
struct ElementwiseMergeLayer {
  static constexpr LayerKind kind = K;
  static constexpr const char* name =
      K == LayerKind::kAdd ? "add" : K == LayerKind::kMultiply ? "multiply" : "average";
  static constexpr LayerInput input = LayerInput::kMerge;
  static constexpr MaskRule mask = MaskRule::kAnyInput;
  Activation activation = Activation::kLinear;

  template <class V> void fields(V& v) {
    v("activation", activation, "Activation applied to the result.");
  }
  void check(LayerProblems&) const {}
};

struct ConcatenateLayer {
  static constexpr LayerKind kind = LayerKind::kConcatenate;
  static constexpr const char* name = "concatenate";
  static constexpr LayerInput input = LayerInput::kMerge;
  static constexpr MaskRule mask = MaskRule::kAnyInput;
  int64_t axis = 1;
  Activation activation = Activation::kLinear;

  template <class V> void fields(V& v) {
    v("axis", axis, "Axis joined along, counted in the shapes `trainer summary` prints with the batch as "
                    "0: 1 is the channels (default); negative counts from the end.");
    v("activation", activation, "Activation applied to the result.");
  }
  void check(LayerProblems& p) const {
    if (axis == 0) p.bad("axis", "the batch axis (0) cannot be joined along");
  }
};

// x * scale + offset (Keras Rescaling).
struct RescalingLayer {
  static constexpr LayerKind kind = LayerKind::kRescaling;
  static constexpr const char* name = "rescaling";
  static constexpr LayerInput input = LayerInput::kAny;
  static constexpr MaskRule mask = MaskRule::kKeeps;
  double scale = 1.0;
  double offset = 0.0;

  template <class V> void fields(V& v) {
    v("scale", scale, "Factor applied to the input.");
    v("offset", offset, "Added after scaling.");
  }
  void check(LayerProblems&) const {}
};

}  // namespace trainer
