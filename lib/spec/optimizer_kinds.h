#pragma once
// Every optimizer of `optimizer.name`, each defined once: the keys it takes
// besides the ones every optimizer takes (`fields`, walked by the reader, the
// writer and the config reference; a key of another optimizer is a config
// error naming these), and Keras's default learning rate and weight decay.
// Its other half is its step, built by an overload of `build_optimizer` in
// lib/optim/optimizer_factory.cpp chosen by the entry's type: an optimizer
// added here without one does not compile.
//
// Torch-free: validation and `trainer config` stay so.
#include <tuple>
#include <utility>

#include "spec/optimizer_config.h"

namespace trainer {

namespace optimizer_fields {
template <class V> void moments(OptimizerConfig& c, V& v) {
  v("beta1", c.beta1, "First-moment decay.", unit_interval());
  v("beta2", c.beta2, "Second-moment decay.", unit_interval());
}
template <class V> void epsilon(OptimizerConfig& c, V& v) {
  v("epsilon", c.epsilon, "Added to the denominator (Keras: 1e-7).", positive());
}
}  // namespace optimizer_fields

struct SgdOptimizer {
  static constexpr OptimizerKind kind = OptimizerKind::kSgd;
  static constexpr double default_lr = 0.01;
  static constexpr double default_weight_decay = 0;
  template <class V> static void fields(OptimizerConfig&, V&) {}
};

struct MomentumOptimizer {
  static constexpr OptimizerKind kind = OptimizerKind::kMomentum;
  static constexpr double default_lr = 0.01;
  static constexpr double default_weight_decay = 0;
  template <class V> static void fields(OptimizerConfig& c, V& v) {
    v("momentum", c.momentum, "Momentum factor.", unit_interval());
    v("nesterov", c.nesterov, "Nesterov momentum.");
  }
};

struct AdagradOptimizer {
  static constexpr OptimizerKind kind = OptimizerKind::kAdagrad;
  static constexpr double default_lr = 0.001;
  static constexpr double default_weight_decay = 0;
  template <class V> static void fields(OptimizerConfig& c, V& v) {
    optimizer_fields::epsilon(c, v);
    v("initial_accumulator", c.initial_accumulator, "Initial accumulator value.", non_negative());
  }
};

// adam and adamw: the same keys; adamw decays the weights decoupled, by default.
template <OptimizerKind K>
struct AdamOptimizer {
  static constexpr OptimizerKind kind = K;
  static constexpr double default_lr = 0.001;
  static constexpr double default_weight_decay = K == OptimizerKind::kAdamw ? 0.004 : 0;
  template <class V> static void fields(OptimizerConfig& c, V& v) {
    optimizer_fields::moments(c, v);
    optimizer_fields::epsilon(c, v);
  }
};

struct RmspropOptimizer {
  static constexpr OptimizerKind kind = OptimizerKind::kRmsprop;
  static constexpr double default_lr = 0.001;
  static constexpr double default_weight_decay = 0;
  template <class V> static void fields(OptimizerConfig& c, V& v) {
    optimizer_fields::epsilon(c, v);
    v("rho", c.rho, "Decay of the squared-gradient average.", unit_interval());
  }
};

struct NadamOptimizer {
  static constexpr OptimizerKind kind = OptimizerKind::kNadam;
  static constexpr double default_lr = 0.001;
  static constexpr double default_weight_decay = 0;
  template <class V> static void fields(OptimizerConfig& c, V& v) {
    optimizer_fields::moments(c, v);
    optimizer_fields::epsilon(c, v);
    v("momentum_decay", c.momentum_decay, "Momentum decay (Keras/PyTorch: 0.004).", non_negative());
  }
};

// Every optimizer, in the order the config reference lists them.
using OptimizerKinds = std::tuple<SgdOptimizer, MomentumOptimizer, AdagradOptimizer, AdamOptimizer<OptimizerKind::kAdam>,
                                  AdamOptimizer<OptimizerKind::kAdamw>, RmspropOptimizer, NadamOptimizer>;

namespace optimizer_kinds_detail {
template <class F, size_t... I>
decltype(auto) dispatch(OptimizerKind kind, F&& f, std::index_sequence<I...>) {
  using Result = decltype(f(std::tuple_element_t<0, OptimizerKinds>{}));
  if constexpr (std::is_void_v<Result>) {
    static_cast<void>(((std::tuple_element_t<I, OptimizerKinds>::kind == kind
                            ? (f(std::tuple_element_t<I, OptimizerKinds>{}), true)
                            : false) ||
                       ...));
  } else {
    Result result{};
    static_cast<void>(((std::tuple_element_t<I, OptimizerKinds>::kind == kind
                            ? (result = f(std::tuple_element_t<I, OptimizerKinds>{}), true)
                            : false) ||
                       ...));
    return result;
  }
}
}  // namespace optimizer_kinds_detail

// f(Entry{}) for the entry of OptimizerKinds whose kind is `kind`; its result, if any.
template <class F>
decltype(auto) with_optimizer_kind(OptimizerKind kind, F&& f) {
  return optimizer_kinds_detail::dispatch(kind, std::forward<F>(f),
                                          std::make_index_sequence<std::tuple_size_v<OptimizerKinds>>{});
}

template <class V> void OptimizerConfig::visit_fields(V& v) {
  v("name", name, "sgd, momentum, adagrad, adam, adamw, rmsprop or nadam; each takes the keys listed under "
                  "'Optimizers' besides these.");
  v("lr", lr, "Learning rate. Default: Keras's for the optimizer (see 'Optimizers').",
    Check<std::optional<double>>([](const auto& x) { return (!x || *x > 0) ? "" : "a number > 0"; }));
  with_optimizer_kind(name, [&](auto kind) { decltype(kind)::fields(*this, v); });
  v("weight_decay", weight_decay, "L2 penalty (decoupled for adamw). Default: the optimizer's (see 'Optimizers').",
    Check<std::optional<double>>([](const auto& x) { return (!x || *x >= 0) ? "" : "a number >= 0"; }));
  v("clip_norm", clip_norm, "Clip gradients to this global L2 norm; 0 = no clipping.", non_negative());
  v("fused", fused,
    "Update each float32 CPU parameter in one pass over its elements instead of four to eight tensor "
    "operations (the same arithmetic; within float rounding of them), every optimizer (rmsprop: without "
    "momentum, not centered); nadam, adam and adamw on GPUs: each tensor operation once for all parameters "
    "(multi-tensor). false: the tensor operations, parameter by parameter.");
  v("schedule", schedule, "Learning-rate schedule, evaluated every step.");
}

// The learning rate and weight decay in effect: the given ones, else the
// optimizer's defaults.
inline double resolved_lr(const OptimizerConfig& config) {
  return config.lr ? *config.lr : with_optimizer_kind(config.name, [](auto kind) { return decltype(kind)::default_lr; });
}
inline double resolved_weight_decay(const OptimizerConfig& config) {
  return config.weight_decay ? *config.weight_decay
                             : with_optimizer_kind(config.name, [](auto kind) { return decltype(kind)::default_weight_decay; });
}

}  // namespace trainer
