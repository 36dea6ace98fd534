#pragma once
// The `optimizer:` section: the keys every optimizer takes, and the union of
// the keys of each (kept in one struct so that a config is one plain value).
// Which optimizer takes which key, and its defaults, is declared once per
// optimizer in spec/optimizer_kinds.h.
//
// Torch-free: validation and `trainer config` stay so.
#include <optional>
#include <string>

#include "spec/checks.h"
#include "spec/enums.h"

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

struct OptimizerConfig {
  OptimizerKind name = OptimizerKind::kAdam;
  // Unset: the optimizer's default (optimizer_kinds.h), which the config
  // loader writes in, so that a run's config.yaml records the value used.
  std::optional<double> lr;
  std::optional<double> weight_decay;
  double clip_norm = 0;
  bool fused = true;
  ScheduleConfig schedule;

  // The keys of one optimizer or another.
  double momentum = 0.9;
  bool nesterov = false;
  double beta1 = 0.9;
  double beta2 = 0.999;
  double epsilon = 1e-7;
  double rho = 0.9;
  double initial_accumulator = 0.1;
  double momentum_decay = 0.004;

  // Defined in spec/optimizer_kinds.h: the common keys, then `name`'s own.
  template <class V> void visit_fields(V& v);
  // For a key that `name` does not take: which optimizers do, and what `name`
  // takes instead; "" when no optimizer takes it.
  std::string foreign_key_note(const std::string& key) const;
};

}  // namespace trainer
