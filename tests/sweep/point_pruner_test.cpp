// The sweep's prune rules on made-up values: when the median rule and
// successive halving stop a point and when they let it go on.
#include <catch2/catch.hpp>

#include <cmath>

#include "sweep/point_pruner.h"

using namespace trainer;

TEST_CASE("the median rule stops a point whose best so far is worse than the others' median at that epoch",
          "[sweep][prune]") {
  PointPruner pruner({PruneRule::kMedian, 2, 3}, /*higher_is_better=*/false, 4);
  // Two points ran before: their values are the others'.
  for (int64_t epoch = 1; epoch <= 3; ++epoch) {
    pruner.record(0, epoch, 1.0 / static_cast<double>(epoch));  // 1, 0.5, 0.33
    pruner.record(1, epoch, 2.0 / static_cast<double>(epoch));  // 2, 1, 0.67
  }
  // Before min_epochs nothing stops, however bad.
  CHECK_FALSE(pruner.should_stop(2, 1, 50));
  // Median of the others at epoch 2: (0.5 + 1) / 2 = 0.75.
  CHECK(pruner.should_stop(2, 2, 0.8));
  CHECK_FALSE(pruner.should_stop(3, 1, 0.9));
  CHECK_FALSE(pruner.should_stop(3, 2, 0.7));
  // The best so far counts, not the last value: 0.7 at epoch 2 against a
  // median of 0.5 at epoch 3 (0.33, 0.67; point 2 has no epoch 3) stops it.
  CHECK(pruner.should_stop(3, 3, 0.9));
}

TEST_CASE("the median rule needs two other points at the epoch and reads accuracy the right way up",
          "[sweep][prune]") {
  PointPruner pruner({PruneRule::kMedian, 1, 3}, /*higher_is_better=*/true, 3);
  pruner.record(0, 1, 0.9);
  CHECK_FALSE(pruner.should_stop(1, 1, 0.1));  // one other point: no median yet
  CHECK(pruner.should_stop(2, 1, 0.4));        // median (0.9 + 0.1) / 2 = 0.5 is better than 0.4
  PointPruner higher({PruneRule::kMedian, 1, 3}, true, 3);
  higher.record(0, 1, 0.9);
  higher.record(1, 1, 0.1);
  CHECK_FALSE(higher.should_stop(2, 1, 0.6));
}

TEST_CASE("asha keeps the best 1/factor of the points at each rung, the best one while fewer got there",
          "[sweep][prune]") {
  PointPruner pruner({PruneRule::kAsha, 1, 3}, /*higher_is_better=*/false, 7);
  CHECK(pruner.rungs_below(30) == std::vector<int64_t>{1, 3, 9, 27});
  CHECK(pruner.rungs_below(9) == std::vector<int64_t>{1, 3});
  CHECK_FALSE(pruner.should_stop(0, 1, 0.5));  // the first at the rung is its best
  CHECK(pruner.should_stop(1, 1, 0.6));        // two there, the best one goes on
  CHECK_FALSE(pruner.should_stop(2, 1, 0.4));  // a new best goes on
  CHECK_FALSE(pruner.should_stop(0, 2, 9.0));  // epoch 2 is no rung: nothing judged
  CHECK_FALSE(pruner.should_stop(0, 3, 0.3));
  // Six at rung 1 (0.5 0.6 0.4 and these): the best 6 / 3 = 2 go on (0.1, 0.2).
  CHECK_FALSE(pruner.should_stop(3, 1, 0.2));
  CHECK_FALSE(pruner.should_stop(4, 1, 0.1));
  CHECK(pruner.should_stop(5, 1, 0.45));
  CHECK_FALSE(pruner.should_stop(6, 1, 0.2));  // ties with the second best go on
  // A diverged point (NaN) is the worst, whichever way is better.
  PointPruner accuracy({PruneRule::kAsha, 2, 2}, true, 2);
  CHECK_FALSE(accuracy.should_stop(0, 2, 0.3));
  CHECK(accuracy.should_stop(1, 2, std::nan("")));
  CHECK(accuracy.rungs_below(9) == std::vector<int64_t>{2, 4, 8});
}

TEST_CASE("without a rule no point is ever stopped", "[sweep][prune]") {
  PointPruner pruner({}, false, 3);
  pruner.record(0, 1, 0.1);
  pruner.record(1, 1, 0.1);
  CHECK_FALSE(pruner.should_stop(2, 1, 100));
  CHECK(prune_rule_name(PruneRule::kAsha) == "asha");
}
