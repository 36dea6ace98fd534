#pragma once
// A sweep's points: `--set key=[a,b,c]` gives an axis (for a key that takes
// a list itself, a list of lists), any other `--set` a value every point
// shares; the grid is every combination, first axis slowest, or `--random K`
// points drawn from it. Each point is named after its values, which names
// its run directory. Torch-free.
#include <cstdint>
#include <string>
#include <vector>

namespace trainer {

struct SweepAxis {
  std::string key;                  // "optimizer.lr"
  std::vector<std::string> values;  // as YAML flow text: "0.01", "[accuracy, top5]"
};

struct SweepPoint {
  std::vector<std::string> overrides;  // "optimizer.lr=0.01", one per axis
  std::string name;                    // "lr=0.01,batch_size=32": its run directory's name
};

struct SweepPlan {
  std::vector<SweepAxis> axes;
  std::vector<std::string> fixed;  // the other --set overrides, as given
  std::vector<SweepPoint> points;
};

// Throws UsageError for an --set that is not KEY=VALUE, an axis with no
// values, no axis at all, or a key given twice.
SweepPlan plan_sweep(const std::vector<std::string>& sets);

// Keeps `count` points of the grid, drawn without repeats with `seed`, in
// grid order; all of them when `count` is 0 or not smaller.
void sample_points(SweepPlan& plan, int64_t count, uint64_t seed);

}  // namespace trainer
