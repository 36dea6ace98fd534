#include "sweep/point_pruner.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace trainer {

std::string prune_rule_name(PruneRule rule) {
  switch (rule) {
    case PruneRule::kNone: return "none";
    case PruneRule::kMedian: return "median";
    case PruneRule::kAsha: return "asha";
  }
  return "none";
}

PointPruner::PointPruner(PruneSettings settings, bool higher_is_better, size_t points)
    : settings_(settings), higher_is_better_(higher_is_better), values_(points) {}

bool PointPruner::better(double a, double b) const { return higher_is_better_ ? a > b : a < b; }

void PointPruner::record(size_t point, int64_t epoch, double value) {
  // A diverged point's NaN loses to every number, never wins a comparison.
  if (std::isnan(value))
    value = higher_is_better_ ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
  values_.at(point)[epoch] = value;
}

std::vector<int64_t> PointPruner::rungs_below(int64_t epochs) const {
  std::vector<int64_t> rungs;
  for (double rung = static_cast<double>(settings_.min_epochs); rung < static_cast<double>(epochs);
       rung *= settings_.factor) {
    const auto epoch = static_cast<int64_t>(std::llround(rung));
    if (rungs.empty() || epoch > rungs.back()) rungs.push_back(epoch);
  }
  return rungs;
}

bool PointPruner::below_median(size_t point, int64_t epoch) const {
  std::vector<double> others;
  for (size_t p = 0; p < values_.size(); ++p) {
    if (p == point) continue;
    if (const auto found = values_[p].find(epoch); found != values_[p].end()) others.push_back(found->second);
  }
  if (others.size() < 2) return false;
  std::sort(others.begin(), others.end());
  const size_t n = others.size();
  const double median = n % 2 ? others[n / 2] : (others[n / 2 - 1] + others[n / 2]) / 2;
  double best = values_[point].at(epoch);
  for (const auto& [e, value] : values_[point])
    if (e <= epoch && better(value, best)) best = value;
  return better(median, best);
}

bool PointPruner::below_rung_cut(int64_t epoch, double value) const {
  std::vector<double> rung;  // every point's value at this rung, this one's included
  for (const auto& point : values_)
    if (const auto found = point.find(epoch); found != point.end()) rung.push_back(found->second);
  const auto kept = std::max<size_t>(1, static_cast<size_t>(std::floor(static_cast<double>(rung.size()) / settings_.factor)));
  std::sort(rung.begin(), rung.end(), [&](double a, double b) { return better(a, b); });
  return better(rung[kept - 1], value);
}

bool PointPruner::should_stop(size_t point, int64_t epoch, double value) {
  record(point, epoch, value);
  if (epoch < settings_.min_epochs) return false;
  value = values_[point][epoch];
  switch (settings_.rule) {
    case PruneRule::kNone: return false;
    case PruneRule::kMedian: return below_median(point, epoch);
    case PruneRule::kAsha: {
      const std::vector<int64_t> rungs = rungs_below(epoch + 1);
      return !rungs.empty() && rungs.back() == epoch && below_rung_cut(epoch, value);
    }
  }
  return false;
}

}  // namespace trainer
