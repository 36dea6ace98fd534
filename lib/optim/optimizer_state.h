#pragma once
// The per-parameter state LibTorch's optimizers keep, for the fused passes
// that step those optimizers' parameters themselves.
#include <memory>
#include <utility>

#include "util/torch_compat.h"

namespace trainer {

// The `State` of `param` in `states` (an optimizer's state()), made by
// start(State&) on first use, as the optimizer's own step would start it.
template <typename State, typename States, typename Start>
State& state_of(States& states, const torch::Tensor& param, Start&& start) {
  auto& slot = states[compat::optimizer_state_key(param)];
  if (!slot) {
    auto fresh = std::make_unique<State>();
    std::forward<Start>(start)(*fresh);
    slot = std::move(fresh);
  }
  return static_cast<State&>(*slot);
}

}  // namespace trainer
