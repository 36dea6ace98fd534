#pragma once
// The layer a user brings: a TorchScript module written and saved in
// Python (torch.jit.script or torch.jit.trace). See spec/layer_kinds.h and
// docs/models.md "Bringing your own layer and loss: TorchScript".
#include <string>

#include "spec/layer_basics.h"

namespace trainer {

struct TorchScriptLayer {
  static constexpr LayerKind kind = LayerKind::kTorchScript;
  static constexpr const char* name = "torchscript";
  static constexpr LayerInput input = LayerInput::kAny;
  // Nothing is known of what it does along a sequence.
  static constexpr MaskRule mask = MaskRule::kDrops;
  std::string path;

  template <class V> void fields(V& v) {
    v("path", path, "The saved TorchScript module (torch.jit.script(m).save(PATH)), relative to where trainer "
                    "runs: forward(x) of one tensor returning one tensor. Its output shape is found by running it "
                    "once; its parameters train, and are saved, resumed and exported with the model's.");
  }
  void check(LayerProblems& p) const {
    if (path.empty()) p.missing("path");
  }
};

}  // namespace trainer
