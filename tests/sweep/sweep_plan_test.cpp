// A sweep's grid from `--set` options: axes, shared values, point names,
// the random draw, and the mistakes that are usage errors.
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>

#include "sweep/sweep_plan.h"
#include "util/error.h"

using namespace trainer;

namespace {

std::vector<std::string> names(const SweepPlan& plan) {
  std::vector<std::string> out;
  for (const auto& point : plan.points) out.push_back(point.name);
  return out;
}

std::string usage_error(const std::vector<std::string>& sets) {
  try {
    plan_sweep(sets);
  } catch (const UsageError& e) {
    return std::string(e.what()) + " (hint: " + e.hint() + ")";
  }
  return "no error";
}

}  // namespace

TEST_CASE("a sweep's grid is every combination, the last axis turning fastest", "[sweep]") {
  const SweepPlan plan = plan_sweep({"optimizer.lr=[1e-2,1e-3]", "train.epochs=2", "train.batch_size=[32, 64, 128]"});
  REQUIRE(plan.axes.size() == 2);
  CHECK(plan.fixed == std::vector<std::string>{"train.epochs=2"});
  CHECK(names(plan) == std::vector<std::string>{"lr=1e-2,batch_size=32", "lr=1e-2,batch_size=64",
                                                "lr=1e-2,batch_size=128", "lr=1e-3,batch_size=32",
                                                "lr=1e-3,batch_size=64", "lr=1e-3,batch_size=128"});
  CHECK(plan.points[4].overrides == std::vector<std::string>{"optimizer.lr=1e-3", "train.batch_size=64"});
}

TEST_CASE("a key that takes a list is an axis only with a list of lists", "[sweep]") {
  const SweepPlan shared = plan_sweep({"metrics=[accuracy,top5]", "optimizer.lr=[0.1,0.2]"});
  CHECK(shared.fixed == std::vector<std::string>{"metrics=[accuracy,top5]"});
  CHECK(shared.points.size() == 2);
  const SweepPlan axis = plan_sweep({"metrics=[[accuracy],[accuracy,top5]]"});
  REQUIRE(axis.points.size() == 2);
  CHECK(axis.points[1].overrides == std::vector<std::string>{"metrics=[accuracy, top5]"});
  CHECK(axis.points[1].name == "metrics=[accuracy,top5]");
}

TEST_CASE("point names stay one path component and tell axes with the same last word apart", "[sweep]") {
  const SweepPlan slashes = plan_sweep({"data.path=[/data/a,/data/b]"});
  CHECK(names(slashes) == std::vector<std::string>{"path=%2Fdata%2Fa", "path=%2Fdata%2Fb"});
  const SweepPlan same_word = plan_sweep({"optimizer.lr=[0.1]", "other.lr=[1,2]"});
  CHECK(names(same_word) == std::vector<std::string>{"optimizer.lr=0.1,other.lr=1", "optimizer.lr=0.1,other.lr=2"});
  const std::string long_start(70, 'a');
  const SweepPlan cut = plan_sweep({"log.run_name=[" + long_start + "x," + long_start + "y,'a b',ab]"});
  CHECK(names(cut) == std::vector<std::string>{"run_name=" + long_start.substr(0, 60),
                                               "run_name=" + long_start.substr(0, 60) + "#2", "run_name=ab",
                                               "run_name=ab#4"});
}

TEST_CASE("sweep --random keeps K distinct points of the grid, in grid order, the same for a seed", "[sweep]") {
  const std::vector<std::string> sets{"optimizer.lr=[1,2,3,4]", "train.batch_size=[8,16,32]"};
  SweepPlan first = plan_sweep(sets);
  const std::vector<std::string> grid = names(first);
  sample_points(first, 5, 11);
  REQUIRE(first.points.size() == 5);
  const std::vector<std::string> kept = names(first);
  const std::set<std::string> distinct(kept.begin(), kept.end());
  CHECK(distinct.size() == 5);
  size_t last = 0;
  for (const auto& name : kept) {
    const size_t at = static_cast<size_t>(std::find(grid.begin(), grid.end(), name) - grid.begin());
    REQUIRE(at < grid.size());
    CHECK(at >= last);
    last = at;
  }
  SweepPlan again = plan_sweep(sets);
  sample_points(again, 5, 11);
  CHECK(names(again) == names(first));
  SweepPlan other_seed = plan_sweep(sets);
  sample_points(other_seed, 5, 12);
  CHECK(names(other_seed) != names(first));
  SweepPlan all = plan_sweep(sets);
  sample_points(all, 100, 11);
  CHECK(all.points.size() == 12);
}

TEST_CASE("a sweep without an axis, a key twice or a value that is not YAML is a usage error", "[sweep]") {
  CHECK_THAT(usage_error({"optimizer.lr=0.1"}), Catch::Contains("needs at least one axis"));
  CHECK_THAT(usage_error({"optimizer.lr=[0.1]", "optimizer.lr=[0.2]"}), Catch::Contains("given twice"));
  CHECK_THAT(usage_error({"optimizer.lr"}), Catch::Contains("expected KEY=VALUE"));
  CHECK_THAT(usage_error({"=[1]"}), Catch::Contains("expected KEY=VALUE"));
  CHECK_THAT(usage_error({"optimizer.lr=[0.1"}), Catch::Contains("not valid YAML"));
  CHECK_THAT(usage_error({"optimizer.lr=[]"}), Catch::Contains("at least one value"));
}

TEST_CASE("an axis listing one value twice is a usage error, however the number is spelled", "[sweep]") {
  CHECK_THAT(usage_error({"optimizer.lr=[0.1,0.01,0.1]"}),
             Catch::Contains("--set optimizer.lr=[0.1,0.01,0.1]: 0.1 is listed twice") &&
                 Catch::Contains("experiment.seed=[1,2,3]"));
  CHECK_THAT(usage_error({"optimizer.lr=[0.1,1e-1]"}), Catch::Contains("0.1 and 1e-1 are one value"));
  CHECK_THAT(usage_error({"optimizer.name=[adam,sgd,adam]"}), Catch::Contains("adam is listed twice"));
  // Values that only look alike are distinct points.
  CHECK(plan_sweep({"optimizer.lr=[0.1,0.01,0.001]"}).points.size() == 3);
  CHECK(plan_sweep({"model.layers.0.units=[16,160]"}).points.size() == 2);
  CHECK(plan_sweep({"optimizer.name=[adam,adamw]"}).points.size() == 2);
}

TEST_CASE("a range axis is drawn from with --random K, the same points for a seed", "[sweep]") {
  const std::vector<std::string> sets{"optimizer.lr=loguniform(1e-4, 1e-1)", "train.batch_size=[16,32]",
                                      "model.units=int(2,5)", "train.epochs=3"};
  SweepPlan plan = plan_sweep(sets);
  REQUIRE(plan.has_range());
  CHECK(plan.points.empty());
  CHECK(plan.fixed == std::vector<std::string>{"train.epochs=3"});
  sample_points(plan, 40, 3);
  REQUIRE(plan.points.size() == 40);
  std::set<std::string> batch_sizes, units;
  double lowest = 1, highest = 0;
  for (const auto& point : plan.points) {
    REQUIRE(point.overrides.size() == 3);
    const double lr = std::stod(point.overrides[0].substr(std::string("optimizer.lr=").size()));
    lowest = std::min(lowest, lr);
    highest = std::max(highest, lr);
    batch_sizes.insert(point.overrides[1]);
    units.insert(point.overrides[2]);
    // The name shows exactly the value trained with.
    CHECK(point.name == "lr=" + point.overrides[0].substr(13) + ",batch_size=" + point.overrides[1].substr(17) +
                            ",units=" + point.overrides[2].substr(12));
  }
  // Log-uniform: 40 draws over three decades reach below 1e-3 and above 1e-2.
  CHECK(lowest >= 1e-4);
  CHECK(lowest < 1e-3);
  CHECK(highest > 1e-2);
  CHECK(highest <= 1e-1);
  CHECK(batch_sizes == std::set<std::string>{"train.batch_size=16", "train.batch_size=32"});
  CHECK(units == std::set<std::string>{"model.units=2", "model.units=3", "model.units=4", "model.units=5"});
  SweepPlan again = plan_sweep(sets);
  sample_points(again, 40, 3);
  CHECK(names(again) == names(plan));
  SweepPlan other = plan_sweep(sets);
  sample_points(other, 40, 4);
  CHECK(names(other) != names(plan));
}

TEST_CASE("a range's draws stop at the points its axes hold", "[sweep]") {
  SweepPlan small = plan_sweep({"train.batch_size=int(1,3)", "optimizer.name=[sgd,adam]"});
  sample_points(small, 50, 1);
  CHECK(small.points.size() == 6);
  const std::vector<std::string> drawn = names(small);
  CHECK(std::set<std::string>(drawn.begin(), drawn.end()).size() == 6);
}

TEST_CASE("a bad range, or a range without --random, is a usage error", "[sweep]") {
  CHECK_THAT(usage_error({"optimizer.lr=loguniform(0,1)"}), Catch::Contains("low end above 0"));
  CHECK_THAT(usage_error({"optimizer.lr=uniform(1,0.5)"}), Catch::Contains("low end must be below"));
  CHECK_THAT(usage_error({"train.batch_size=int(1.5,8)"}), Catch::Contains("whole numbers"));
  CHECK_THAT(usage_error({"optimizer.lr=uniform(a,1)"}), Catch::Contains("a is not a number"));
  SweepPlan plan = plan_sweep({"optimizer.lr=uniform(0.1,0.2)"});
  try {
    sample_points(plan, 0, 1);
    FAIL("no error");
  } catch (const UsageError& e) {
    CHECK_THAT(e.what(), Catch::Contains("has no grid"));
    CHECK_THAT(e.hint(), Catch::Contains("--random K"));
  }
}
