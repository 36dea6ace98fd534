#pragma once
// A sweep's points: `--set key=[a,b,c]` gives an axis (for a key that takes
// a list itself, a list of lists), `--set key=loguniform(a,b)` an axis drawn
// from a range, any other `--set` a value every point shares. The grid is
// every combination, first axis slowest, or `--random K` points drawn from
// it; with a range among the axes, `--random K` draws K points, each value
// on its own. Each point is named after its values, which names its run
// directory. Torch-free.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sweep/sweep_range.h"

namespace trainer {

struct SweepAxis {
  std::string key;                  // "optimizer.lr"
  std::vector<std::string> values;  // as YAML flow text: "0.01", "[accuracy, top5]"; empty for a range
  std::optional<SweepRange> range;
  std::string label;                // in point names: "lr", or the whole key where two end alike
};

struct SweepPoint {
  std::vector<std::string> overrides;  // "optimizer.lr=0.01", one per axis
  std::string name;                    // "lr=0.01,batch_size=32": its run directory's name
};

struct SweepPlan {
  std::vector<SweepAxis> axes;
  std::vector<std::string> fixed;  // the other --set overrides, as given
  std::vector<SweepPoint> points;  // the grid; empty while a range is among the axes
  bool has_range() const;
};

// Throws UsageError for an --set that is not KEY=VALUE, an axis with no
// values, a bad range, no axis at all, or a key given twice.
SweepPlan plan_sweep(const std::vector<std::string>& sets);

// Without a range: keeps `count` points of the grid, drawn without repeats
// with `seed`, in grid order; all of them when `count` is 0 or not smaller.
// With one: draws `count` distinct points (fewer only when the axes hold
// fewer), every axis on its own; UsageError when `count` is 0.
void sample_points(SweepPlan& plan, int64_t count, uint64_t seed);

}  // namespace trainer
