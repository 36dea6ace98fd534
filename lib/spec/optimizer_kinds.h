#pragma once
// Every optimizer of `optimizer.name`, each defined once as a struct that
// owns the keys it takes besides the ones every optimizer takes (members
// named as the keys; `fields`, walked by the reader, the writer and the
// config reference; a key of another optimizer is a config error naming
// these), and Keras's default learning rate and weight decay. An
// OptimizerConfig (spec/optimizer_config.h) holds one of them. Its other half
// is its step, built by an overload of `build_optimizer` in
// lib/optim/optimizer_factory.cpp chosen by the entry's type: an optimizer
// added here without one does not compile.
//
// Torch-free: validation and `trainer config` stay so.
#include <tuple>
#include <utility>

#include "spec/checks.h"
#include "spec/enum_names.h"
#include "spec/enums.h"
#include "spec/kind_table.h"

namespace trainer {

enum class OptimizerKind { kSgd, kMomentum, kAdagrad, kAdam, kAdamw, kRmsprop, kNadam };

// Keys several optimizers share, each a member of those that take it.
struct MomentKeys {
  double beta1 = 0.9;
  double beta2 = 0.999;
  template <class V> void moment_fields(V& v) {
    v("beta1", beta1, "First-moment decay.", unit_interval());
    v("beta2", beta2, "Second-moment decay.", unit_interval());
  }
};
struct EpsilonKey {
  double epsilon = 1e-7;
  template <class V> void epsilon_field(V& v) {
    v("epsilon", epsilon, "Added to the denominator (Keras: 1e-7).", positive());
  }
};

struct SgdOptimizer {
  static constexpr OptimizerKind kind = OptimizerKind::kSgd;
  static constexpr const char* name = "sgd";
  static constexpr double default_lr = 0.01;
  static constexpr double default_weight_decay = 0;
  template <class V> void fields(V&) {}
};

struct MomentumOptimizer {
  static constexpr OptimizerKind kind = OptimizerKind::kMomentum;
  static constexpr const char* name = "momentum";
  static constexpr double default_lr = 0.01;
  static constexpr double default_weight_decay = 0;
  double momentum = 0.9;
  bool nesterov = false;
  template <class V> void fields(V& v) {
    v("momentum", momentum, "Momentum factor.", unit_interval());
    v("nesterov", nesterov, "Nesterov momentum.");
  }
};

struct AdagradOptimizer : EpsilonKey {
  static constexpr OptimizerKind kind = OptimizerKind::kAdagrad;
  static constexpr const char* name = "adagrad";
  static constexpr double default_lr = 0.001;
  static constexpr double default_weight_decay = 0;
  double initial_accumulator = 0.1;
  template <class V> void fields(V& v) {
    epsilon_field(v);
    v("initial_accumulator", initial_accumulator, "Initial accumulator value.", non_negative());
  }
};

// adam and adamw: the same keys; adamw decays the weights decoupled, by default.
template <OptimizerKind K>
struct AdamOptimizer : MomentKeys, EpsilonKey {
  static constexpr OptimizerKind kind = K;
  static constexpr const char* name = K == OptimizerKind::kAdamw ? "adamw" : "adam";
  static constexpr double default_lr = 0.001;
  static constexpr double default_weight_decay = K == OptimizerKind::kAdamw ? 0.004 : 0;
  template <class V> void fields(V& v) {
    moment_fields(v);
    epsilon_field(v);
  }
};

struct RmspropOptimizer : EpsilonKey {
  static constexpr OptimizerKind kind = OptimizerKind::kRmsprop;
  static constexpr const char* name = "rmsprop";
  static constexpr double default_lr = 0.001;
  static constexpr double default_weight_decay = 0;
  double rho = 0.9;
  template <class V> void fields(V& v) {
    epsilon_field(v);
    v("rho", rho, "Decay of the squared-gradient average.", unit_interval());
  }
};

struct NadamOptimizer : MomentKeys, EpsilonKey {
  static constexpr OptimizerKind kind = OptimizerKind::kNadam;
  static constexpr const char* name = "nadam";
  static constexpr double default_lr = 0.001;
  static constexpr double default_weight_decay = 0;
  double momentum_decay = 0.004;
  template <class V> void fields(V& v) {
    moment_fields(v);
    epsilon_field(v);
    v("momentum_decay", momentum_decay, "Momentum decay (Keras/PyTorch: 0.004).", non_negative());
  }
};

// Every optimizer, in the order the config reference lists them.
using OptimizerKinds = std::tuple<SgdOptimizer, MomentumOptimizer, AdagradOptimizer, AdamOptimizer<OptimizerKind::kAdam>,
                                  AdamOptimizer<OptimizerKind::kAdamw>, RmspropOptimizer, NadamOptimizer>;

template <> struct EnumTable<OptimizerKind> {
  static constexpr auto entries = kind_names<OptimizerKind, OptimizerKinds>();
};

// One optimizer's entry, keys and all: what an OptimizerConfig holds.
using OptimizerKeys = VariantOf<OptimizerKinds>::type;

// f(Entry{}) with a default entry of the optimizer `kind`; its result, if any.
template <class F>
decltype(auto) with_optimizer_kind(OptimizerKind kind, F&& f) {
  return with_kind<OptimizerKinds>(kind, std::forward<F>(f));
}

}  // namespace trainer
