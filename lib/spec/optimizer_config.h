#pragma once
// The `optimizer:` section (OptimizerConfig) and the schedule in it. Which
// optimizer takes which key, and its defaults, is declared once per
// optimizer in spec/optimizer_kinds.h.
//
// Torch-free: validation and `trainer config` stay so.
#include <optional>
#include <string>
#include <type_traits>
#include <variant>

#include "spec/checks.h"
#include "spec/enums.h"
#include "spec/field_types.h"
#include "spec/optimizer_kinds.h"

namespace trainer {

struct ScheduleConfig {
  ScheduleKind name = ScheduleKind::kConstant;
  double gamma = 0.1;
  double step_epochs = 1;
  double min_lr = 0;
  double warmup_epochs = 0;

  template <class V> void visit_fields(V& v) {
    v("name", name, "constant; step (x gamma every step_epochs); exponential (x gamma per epoch, "
                    "continuous); cosine (to min_lr at the last epoch).");
    v("gamma", gamma, "Decay factor of step and exponential.", positive());
    v("step_epochs", step_epochs, "Epochs between decays of the step schedule.", positive());
    v("min_lr", min_lr, "Final learning rate of the cosine schedule.", non_negative());
    v("warmup_epochs", warmup_epochs, "Linear warm-up from 0 over this many epochs (fractions allowed).",
      non_negative());
  }
};

// The `optimizer:` section: the keys every optimizer takes, and the entry of
// the optimizer `name` chose (spec/optimizer_kinds.h), which owns that
// optimizer's own keys.
struct OptimizerConfig {
  // Unset: the optimizer's default (optimizer_kinds.h), which the config
  // loader writes in, so that a run's config.yaml records the value used.
  std::optional<double> lr;
  LayerScales lr_scale;
  std::optional<double> weight_decay;
  double clip_norm = 0;
  bool fused = true;
  ScheduleConfig schedule;
  OptimizerKeys keys = AdamOptimizer<OptimizerKind::kAdam>{};

  OptimizerKind name() const {
    return std::visit([](const auto& entry) { return std::decay_t<decltype(entry)>::kind; }, keys);
  }
  // Becomes the optimizer `kind` with its own keys at their defaults.
  void set_name(OptimizerKind kind) {
    if (kind != name()) with_optimizer_kind(kind, [&](auto entry) { keys = std::move(entry); });
  }
  // The entry when the optimizer is that one, else null.
  template <class Entry> const Entry* as() const { return std::get_if<Entry>(&keys); }

  // Defined in spec/optimizer_kinds.h: the common keys, then `name`'s own.
  template <class V> void visit_fields(V& v);
  static constexpr const char* kKindKey = "name";
  // For a key that `name` does not take: which optimizers do, and what `name`
  // takes instead; "" when no optimizer takes it.
  std::string foreign_key_note(const std::string& key) const;
  // Left out of a run's config.yaml while unused.
  bool is_quiet_default(const std::string& key) const { return key == "lr_scale" && lr_scale.rules.empty(); }
};

template <class V> void OptimizerConfig::visit_fields(V& v) {
  // Read first, so that the optimizer's own keys below are the chosen one's.
  OptimizerKind kind = name();
  v("name", kind, "sgd, momentum, adagrad, adam, adamw, rmsprop or nadam; each takes the keys listed under "
                  "'Optimizers' besides these.");
  set_name(kind);
  v("lr", lr, "Learning rate. Default: Keras's for the optimizer (see 'Optimizers').",
    Check<std::optional<double>>([](const auto& x) { return (!x || *x > 0) ? "" : "a number > 0"; }));
  std::visit([&](auto& entry) { entry.fields(v); }, keys);
  v("weight_decay", weight_decay, "L2 penalty (decoupled for adamw). Default: the optimizer's (see 'Optimizers').",
    Check<std::optional<double>>([](const auto& x) { return (!x || *x >= 0) ? "" : "a number >= 0"; }));
  v("clip_norm", clip_norm, "Clip gradients to this global L2 norm; 0 = no clipping.", non_negative());
  v("fused", fused,
    "Update each float32 CPU parameter in one pass over its elements instead of four to eight tensor "
    "operations (the same arithmetic; within float rounding of them), every optimizer (rmsprop: without "
    "momentum, not centered); adam and adamw on GPUs with LibTorch 2.2 or later: LibTorch's fused kernel, one "
    "launch a parameter group; nadam (and adam, adamw with an older LibTorch) on GPUs: each tensor operation "
    "once for all parameters (multi-tensor). false: the tensor operations, parameter by parameter.");
  v("schedule", schedule, "Learning-rate schedule, evaluated every step.");
  v("lr_scale", lr_scale,
    "Learning-rate multipliers by layer, {pattern: factor}: trainer summary's layer names, * and ? matching any "
    "characters ({\"conv2d*\": 0.1} trains the convolutions at a tenth of the rate, the fine-tuning recipe); a "
    "layer takes the first pattern that matches it, others 1. Schedules scale every group alike.");
}

// The learning rate and weight decay in effect: the given ones, else the
// optimizer's defaults.
inline double resolved_lr(const OptimizerConfig& config) {
  return config.lr ? *config.lr
                   : std::visit([](const auto& entry) { return std::decay_t<decltype(entry)>::default_lr; }, config.keys);
}
inline double resolved_weight_decay(const OptimizerConfig& config) {
  return config.weight_decay
             ? *config.weight_decay
             : std::visit([](const auto& entry) { return std::decay_t<decltype(entry)>::default_weight_decay; },
                          config.keys);
}

}  // namespace trainer
