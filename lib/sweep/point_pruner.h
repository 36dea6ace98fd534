#pragma once
// Stopping a sweep's weak points early, judged by the monitored value each
// point reaches after each epoch (`trainer sweep --prune`):
//
// - median: from `min_epochs` on, a point whose best value so far is worse
//   than the median of the values the other points had at the same epoch
//   (at least two of them having got that far) stops: the median stopping
//   rule of Google Vizier, as Optuna's MedianPruner applies it.
// - asha: successive halving without waiting for a whole round, rungs at
//   min_epochs, min_epochs x factor, min_epochs x factor^2, ... epochs; a
//   point reaching a rung goes on only while its value there is among the
//   best 1/factor of the values every point had at that rung (the best one
//   when fewer than `factor` points got there), as Optuna's
//   SuccessiveHalvingPruner and Ray Tune's ASHA decide it.
//
// Points that finished, were pruned, or ran in an earlier run of the sweep
// count as the others once their values are recorded. Torch-free.
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace trainer {

enum class PruneRule { kNone, kMedian, kAsha };

struct PruneSettings {
  PruneRule rule = PruneRule::kNone;
  int64_t min_epochs = 1;  // no point stops before it trained this many epochs
  double factor = 3;       // asha: the rungs' spacing, and 1/factor of a rung goes on
};

// "none", "median", "asha"
std::string prune_rule_name(PruneRule rule);

class PointPruner {
 public:
  PointPruner(PruneSettings settings, bool higher_is_better, size_t points);

  // Records `point`'s monitored value after `epoch` (NaN: worse than any)
  // and says whether the point should stop there.
  bool should_stop(size_t point, int64_t epoch, double value);
  // Records a value without judging it (a point of an earlier run).
  void record(size_t point, int64_t epoch, double value);

  // asha's rungs below `epochs`: min_epochs, min_epochs x factor, ...
  std::vector<int64_t> rungs_below(int64_t epochs) const;

 private:
  bool better(double a, double b) const;  // a strictly better than b
  bool below_median(size_t point, int64_t epoch) const;
  bool below_rung_cut(int64_t epoch, double value) const;

  PruneSettings settings_;
  bool higher_is_better_;
  std::vector<std::map<int64_t, double>> values_;  // per point: epoch -> value, NaN made the worst
};

}  // namespace trainer
