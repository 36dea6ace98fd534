#pragma once
// The layer kinds that shape the graph: the residual block and the merges
// of named tensors (Keras's Add, Multiply, Average, Concatenate), and
// Rescaling, which makes a global skip `(input + x) / 2` expressible.
// See spec/layer_kinds.h and docs/models.md.
#include <string>

#include "spec/checks.h"
#include "spec/layer_spec.h"

namespace trainer {

// `layers` applied to the input, plus `shortcut` applied to it (or the input
// itself), then the activation: ResNet's block.
struct ResidualLayer {
  static constexpr LayerKind kind = LayerKind::kResidual;
  static constexpr const char* name = "residual";
  static constexpr LayerInput input = LayerInput::kBlock;
  static constexpr MaskRule mask = MaskRule::kAnyInput;
  template <class V> static void fields(LayerSpec& s, V& v) {
    v.required("layers", s.layers, "The block's body; its output is added to the shortcut's.");
    v("shortcut", s.shortcut, "Layers on the shortcut path (e.g. a 1x1 conv and a batchnorm where the "
                              "body changes the shape); default: the input itself.");
    v("activation", s.activation, "Activation applied after the addition.");
  }
  static void check(const LayerSpec& s, LayerProblems& p) {
    if (s.layers.empty()) p.bad("layers", "expected at least one layer");
  }
};

// Element-wise merges of two or more tensors of one shape.
template <LayerKind K>
struct ElementwiseMergeLayer {
  static constexpr LayerKind kind = K;
  static constexpr const char* name =
      K == LayerKind::kAdd ? "add" : K == LayerKind::kMultiply ? "multiply" : "average";
  static constexpr LayerInput input = LayerInput::kMerge;
  static constexpr MaskRule mask = MaskRule::kAnyInput;
  template <class V> static void fields(LayerSpec& s, V& v) {
    v("activation", s.activation, "Activation applied to the result.");
  }
  static void check(const LayerSpec& s, LayerProblems& p) {
    if (s.inputs.size() < 2) p.bad("inputs", "expected two or more tensor names to merge");
  }
};

struct ConcatenateLayer {
  static constexpr LayerKind kind = LayerKind::kConcatenate;
  static constexpr const char* name = "concatenate";
  static constexpr LayerInput input = LayerInput::kMerge;
  static constexpr MaskRule mask = MaskRule::kAnyInput;
  template <class V> static void fields(LayerSpec& s, V& v) {
    v("axis", s.axis, "Axis joined along, counted in the shapes `trainer summary` prints with the batch as "
                      "0: 1 is the channels (default); negative counts from the end.");
    v("activation", s.activation, "Activation applied to the result.");
  }
  static void check(const LayerSpec& s, LayerProblems& p) {
    if (s.inputs.size() < 2) p.bad("inputs", "expected two or more tensor names to join");
    if (s.axis == 0) p.bad("axis", "the batch axis (0) cannot be joined along");
  }
};

// x * scale + offset (Keras Rescaling).
struct RescalingLayer {
  static constexpr LayerKind kind = LayerKind::kRescaling;
  static constexpr const char* name = "rescaling";
  static constexpr LayerInput input = LayerInput::kAny;
  static constexpr MaskRule mask = MaskRule::kKeeps;
  template <class V> static void fields(LayerSpec& s, V& v) {
    v("scale", s.rescale, "Factor applied to the input.");
    v("offset", s.offset, "Added after scaling.");
  }
  static void check(const LayerSpec&, LayerProblems&) {}
};

}  // namespace trainer
