#pragma once
// A one-line progress bar on stderr (step, samples/s, ETA, running loss),
// redrawn at most 4 times a second. Off unless stderr is a terminal (or
// log.progress says always), so pipes and files never see it.
#include <cstdint>
#include <functional>
#include <string>

#include "config/enums.h"
#include "util/stopwatch.h"

namespace trainer {

class ProgressBar {
 public:
  ProgressBar(ProgressMode mode, bool quiet);
  bool enabled() const { return enabled_; }
  void start(int64_t epoch, int64_t epochs, int64_t steps);
  // `running_loss` is only called when the bar is redrawn (it syncs the device).
  void update(int64_t step, int64_t samples, const std::function<double()>& running_loss);
  void finish();

 private:
  bool enabled_;
  int64_t epoch_ = 0, epochs_ = 0, steps_ = 0;
  Stopwatch epoch_clock_;
  double last_draw_ = -1;
};

}  // namespace trainer
