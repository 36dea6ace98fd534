// train.monitor: which figure, which way, and the verdicts on a known curve.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <vector>

#include "runs/epoch_monitor.h"
#include "spec/monitor_spec.h"

using namespace trainer;

namespace {

TrainConfig train_with(const std::string& monitor, MonitorMode mode = MonitorMode::kAuto) {
  TrainConfig train;
  train.monitor = monitor;
  train.mode = mode;
  return train;
}

// Epoch `epoch` with `value` as its val_loss (or no validation when NaN is
// not wanted: `validated` false).
EpochRecord epoch_with(int64_t epoch, double value, bool validated = true) {
  EpochRecord record;
  record.epoch = epoch;
  record.train = {{"Loss", "loss", 1.0f}};
  if (validated) record.valid = {{"Loss", "loss", static_cast<float>(value)}};
  return record;
}

struct Seen {
  bool improved;
  bool stop;
};

std::vector<Seen> replay(EpochMonitor& monitor, const std::vector<double>& curve, int64_t first_epoch = 1) {
  std::vector<Seen> seen;
  for (size_t i = 0; i < curve.size(); ++i) {
    const MonitorVerdict verdict = monitor.observe(epoch_with(first_epoch + static_cast<int64_t>(i), curve[i]));
    seen.push_back({verdict.improved, verdict.stop});
  }
  return seen;
}

}  // namespace

TEST_CASE("train.monitor names the loss or a metric, with or without val_, and knows its direction", "[monitor]") {
  const std::vector<std::string> metrics{"accuracy", "top5", "mse"};
  const auto val_loss = resolve_monitor(train_with("val_loss"), metrics);
  REQUIRE(val_loss);
  CHECK(val_loss->key == "val_loss");
  CHECK(val_loss->validation);
  CHECK_FALSE(val_loss->higher_is_better);
  const auto accuracy = resolve_monitor(train_with("accuracy"), metrics);
  REQUIRE(accuracy);
  CHECK_FALSE(accuracy->validation);
  CHECK(accuracy->higher_is_better);
  const auto top5 = resolve_monitor(train_with("val_top5"), metrics);  // as written in metrics:
  REQUIRE(top5);
  CHECK(top5->key == "val_top5_accuracy");
  CHECK(top5->higher_is_better);
  CHECK_FALSE(resolve_monitor(train_with("val_mse"), metrics)->higher_is_better);
  CHECK(resolve_monitor(train_with("val_loss", MonitorMode::kMax), metrics)->higher_is_better);
  CHECK(resolve_monitor(train_with("val_accuracy", MonitorMode::kMin), metrics)->higher_is_better == false);
  CHECK_FALSE(resolve_monitor(train_with("val_acc"), metrics));
  CHECK_FALSE(resolve_monitor(train_with("val_psnr"), metrics));  // not among the metrics
  CHECK(monitor_choices({"accuracy"}) == "loss, val_loss, accuracy, val_accuracy");
}

TEST_CASE("the best epoch and early stopping follow Keras's rules on a known curve", "[monitor]") {
  TrainConfig train = train_with("val_loss");
  train.min_delta = 0.02;
  train.early_stopping.patience = 2;
  EpochMonitor monitor(train, *resolve_monitor(train, {}));
  // 2 beats 1 by more than 0.02; 4 beats 2 by only 0.01 (no new best, but
  // early stopping's min_delta is 0, so its patience starts again); 5 and 6
  // are worse: the patience of 2 runs out at 6.
  const auto seen = replay(monitor, {1.0, 0.8, 0.85, 0.79, 0.9, 0.95});
  CHECK(seen[0].improved);
  CHECK(seen[1].improved);
  CHECK_FALSE(seen[2].improved);
  CHECK_FALSE(seen[3].improved);
  CHECK_FALSE(seen[4].improved);
  for (size_t i = 0; i < 5; ++i) CHECK_FALSE(seen[i].stop);
  CHECK(seen[5].stop);
  CHECK(monitor.counters.best == Approx(0.8));
  CHECK(monitor.counters.best_epoch == 2);
  CHECK(monitor.exhausted());

  SECTION("a monitor given the counters part way goes on exactly as the uninterrupted one (resume)") {
    EpochMonitor first(train, *resolve_monitor(train, {}));
    replay(first, {1.0, 0.8, 0.85, 0.79, 0.9});
    CHECK_FALSE(first.exhausted());
    EpochMonitor resumed(train, *resolve_monitor(train, {}));
    resumed.counters = first.counters;
    const auto rest = replay(resumed, {0.95}, 6);
    CHECK(rest[0].stop);
    CHECK(resumed.counters.best_epoch == 2);
  }
  SECTION("patience 0 never stops") {
    train.early_stopping.patience = 0;
    EpochMonitor patient(train, *resolve_monitor(train, {}));
    for (const Seen& s : replay(patient, {1, 2, 3, 4, 5, 6, 7})) CHECK_FALSE(s.stop);
  }
}

TEST_CASE("epochs that did not measure the figure leave the verdict alone, and NaN is never the best", "[monitor]") {
  TrainConfig train = train_with("val_loss");
  train.early_stopping.patience = 1;
  EpochMonitor monitor(train, *resolve_monitor(train, {}));
  CHECK(monitor.observe(epoch_with(1, 0.5)).improved);
  const MonitorVerdict skipped = monitor.observe(epoch_with(2, 0, /*validated=*/false));
  CHECK_FALSE(skipped.measured);
  CHECK(monitor.counters.waited == 0);
  const MonitorVerdict nan = monitor.observe(epoch_with(3, std::numeric_limits<double>::quiet_NaN()));
  CHECK(nan.measured);
  CHECK_FALSE(nan.improved);
  CHECK(nan.stop);
  CHECK(monitor.counters.best == Approx(0.5));
}
