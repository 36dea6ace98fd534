#pragma once
// A one-line progress bar on stderr for training and validation (the
// phase, a bar, step, elapsed and ETA, running loss and first metric,
// samples/s), fitted to the terminal's width at each redraw (so a resized
// terminal gets lines that fit) and redrawn at most 4 times a second. Off
// unless stderr is a terminal (or log.progress says always), so pipes and
// files never see it.
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "spec/enums.h"
#include "util/stopwatch.h"

namespace trainer {

// Running values for the bar, the loss first; computing them may sync the device.
using RunningValues = std::function<std::vector<std::pair<std::string, double>>()>;

class ProgressBar {
 public:
  ProgressBar(ProgressMode mode, bool quiet);
  bool enabled() const { return enabled_; }
  void start(int64_t epoch, int64_t epochs, int64_t steps);
  // The validation after the epoch last started.
  void start_validation(int64_t steps);
  // `values` is only called when the bar is redrawn.
  void update(int64_t step, int64_t samples, const RunningValues& values);
  void finish();

 private:
  void begin(const char* phase, int64_t steps);
  bool enabled_;
  std::string phase_;
  int64_t epoch_ = 0, epochs_ = 0, steps_ = 0;
  Stopwatch clock_;
  double last_draw_ = -1;
};

// The columns of the terminal on stderr; COLUMNS, else 80, when it has none.
int terminal_width();

}  // namespace trainer
