#pragma once
// What every optimizer with a fused CPU pass carries: the switch
// (optimizer.fused) and a count of the updates the pass made.
#include <cstdint>

namespace trainer {

class FusedSwitch {
 public:
  // Dense float32 CPU parameters are updated in one fused pass each (and
  // NAdam's, Adam's and AdamW's GPU parameters in one multi-tensor pass for
  // all); false: always the tensor operations (the reference the passes are
  // tested against).
  void set_fused(bool fused) { fused_ = fused; }
  // How many parameter updates took a fused or multi-tensor pass (for the
  // tests).
  int64_t fused_updates() const { return fused_updates_; }

 protected:
  bool fused_ = true;
  int64_t fused_updates_ = 0;
};

}  // namespace trainer
