#include <catch2/catch.hpp>

#include "optim/lr_schedule.h"

using namespace trainer;

TEST_CASE("learning-rate schedules", "[train][schedule]") {
  ScheduleConfig schedule;
  CHECK(scheduled_lr(schedule, 0.1, 3.5, 10) == Approx(0.1));
  schedule.name = ScheduleKind::kStep;
  schedule.gamma = 0.5;
  schedule.step_epochs = 2;
  CHECK(scheduled_lr(schedule, 0.1, 1.99, 10) == Approx(0.1));
  CHECK(scheduled_lr(schedule, 0.1, 2.0, 10) == Approx(0.05));
  CHECK(scheduled_lr(schedule, 0.1, 4.5, 10) == Approx(0.025));
  schedule.name = ScheduleKind::kExponential;
  CHECK(scheduled_lr(schedule, 0.1, 1.0, 10) == Approx(0.05));
  schedule.name = ScheduleKind::kCosine;
  schedule.min_lr = 0.01;
  CHECK(scheduled_lr(schedule, 0.1, 0, 10) == Approx(0.1));
  CHECK(scheduled_lr(schedule, 0.1, 5, 10) == Approx(0.055));
  CHECK(scheduled_lr(schedule, 0.1, 10, 10) == Approx(0.01));
  SECTION("linear warm-up scales any schedule") {
    schedule.name = ScheduleKind::kConstant;
    schedule.warmup_epochs = 2;
    CHECK(scheduled_lr(schedule, 0.1, 0, 10) == Approx(0.0));
    CHECK(scheduled_lr(schedule, 0.1, 0.5, 10) == Approx(0.025));
    CHECK(scheduled_lr(schedule, 0.1, 2, 10) == Approx(0.1));
  }
}
