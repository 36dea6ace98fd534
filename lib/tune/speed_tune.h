#pragma once
// `trainer tune FILE`: each setting of plan_speed_knobs tried in turn with
// timed training steps (trainer bench's), the others at the best found so
// far; a value replaces the current one only when faster by kSpeedMargin.
// At the end the experiment as it is and the tuned settings are measured
// again, one after the other, for the speed-up reported.
#include <string>
#include <vector>

#include "tune/speed_settings.h"

namespace trainer {

struct SpeedTuneOptions {
  int64_t steps = 30;
  int64_t warmup = 5;
};

// `overrides`: the --set the experiment was given, under every trial's own.
SpeedTuneResult tune_speed(const std::string& file, const std::vector<std::string>& overrides,
                           const SpeedTuneOptions& options);

}  // namespace trainer
