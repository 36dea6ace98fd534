#include "runs/epoch_monitor.h"

#include <cmath>
#include <cstdio>

namespace trainer {
namespace {

const MetricValue* find_figure(const std::vector<MetricValue>& values, const std::string& key) {
  for (const auto& value : values)
    if (value.key == key) return &value;
  return nullptr;
}

std::string format4(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4g", value);
  return text;
}

}  // namespace

EpochMonitor::EpochMonitor(const TrainConfig& train, MonitorSpec spec)
    : spec_(std::move(spec)),
      min_delta_(train.min_delta),
      patience_(train.early_stopping.patience),
      patience_delta_(train.early_stopping.min_delta) {}

bool EpochMonitor::beats(double value, double reference, double delta) const {
  if (!std::isfinite(value)) return false;  // a NaN is never the best
  if (std::isnan(reference)) return true;
  return spec_.higher_is_better ? value > reference + delta : value < reference - delta;
}

MonitorVerdict EpochMonitor::observe(const EpochRecord& record) {
  MonitorVerdict verdict;
  const MetricValue* figure = find_figure(spec_.validation ? record.valid : record.train, spec_.figure);
  if (!figure) return verdict;
  verdict.measured = true;
  verdict.value = figure->value;
  verdict.previous_best = counters.best;
  if (beats(verdict.value, counters.best, min_delta_)) {
    verdict.improved = true;
    counters.best = verdict.value;
    counters.best_epoch = record.epoch;
  }
  if (beats(verdict.value, counters.patience_best, patience_delta_)) {
    counters.patience_best = verdict.value;
    counters.waited = 0;
  } else {
    ++counters.waited;
  }
  verdict.stop = exhausted();
  return verdict;
}

bool EpochMonitor::exhausted() const { return patience_ > 0 && counters.waited >= patience_; }

std::string describe_verdict(const EpochMonitor& monitor, const MonitorVerdict& verdict) {
  const std::string& key = monitor.spec().key;
  std::string text;
  if (verdict.improved)
    text = std::isnan(verdict.previous_best)
               ? key + " " + format4(verdict.value) + ", the first measured"
               : key + " improved from " + format4(verdict.previous_best) + " to " + format4(verdict.value);
  else
    text = key + " " + format4(verdict.value) + " did not improve on " + format4(monitor.counters.best) + " (epoch " +
           std::to_string(monitor.counters.best_epoch) + ")";
  if (monitor.patience() > 0 && monitor.counters.waited > 0)
    text += "; " + std::to_string(monitor.counters.waited) + " of " + std::to_string(monitor.patience()) +
            " without improvement";
  return text;
}

}  // namespace trainer
