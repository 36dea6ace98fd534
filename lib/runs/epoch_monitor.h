#pragma once
// train.monitor at each epoch's end: whether the epoch is the best so far
// (checkpoints/best.pt) and whether early stopping has run out of patience.
// Keras's ModelCheckpoint(save_best_only) and EarlyStopping, on one figure,
// with counters a checkpoint carries so that a resumed run goes on counting.
#include <cstdint>
#include <limits>
#include <string>

#include "runs/epoch_log.h"
#include "spec/monitor_spec.h"
#include "spec/train_config.h"

namespace trainer {

struct MonitorCounters {
  double best = std::numeric_limits<double>::quiet_NaN();  // best.pt's figure; NaN: none yet
  int64_t best_epoch = 0;
  // Early stopping's own reference (its min_delta may differ from
  // train.min_delta) and the measurements since it last improved.
  double patience_best = std::numeric_limits<double>::quiet_NaN();
  int64_t waited = 0;
};

struct MonitorVerdict {
  bool measured = false;  // the figure is in this epoch's record
  bool improved = false;  // a new best: best.pt is to be written
  bool stop = false;      // early stopping's patience ran out
  double value = 0;
  double previous_best = std::numeric_limits<double>::quiet_NaN();
};

class EpochMonitor {
 public:
  EpochMonitor(const TrainConfig& train, MonitorSpec spec);

  MonitorVerdict observe(const EpochRecord& record);
  // Patience already spent: a run that stopped early and is resumed with
  // the same patience has nothing left to train.
  bool exhausted() const;

  const MonitorSpec& spec() const { return spec_; }
  int64_t patience() const { return patience_; }
  MonitorCounters counters;

 private:
  bool beats(double value, double reference, double delta) const;

  MonitorSpec spec_;
  double min_delta_;
  int64_t patience_;
  double patience_delta_;
};

// "val_loss improved from 0.5123 to 0.4981" / "val_loss 0.5300 did not improve on 0.4981 (epoch 6); 2 of 3 without
// improvement".
std::string describe_verdict(const EpochMonitor& monitor, const MonitorVerdict& verdict);

}  // namespace trainer
