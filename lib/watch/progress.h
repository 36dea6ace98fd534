#pragma once
// Progress on stderr for training and validation (the phase, step, elapsed
// and ETA, running loss and first metric, samples/s). On a terminal, a
// one-line bar fitted to the terminal's width at each redraw (so a resized
// terminal gets lines that fit), redrawn at most 4 times a second. Elsewhere
// (a batch job's log file, a pipe), a plain line every log.progress_seconds:
// no carriage returns or escape codes, which such files would keep.
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
  ProgressBar(ProgressMode mode, bool quiet, double line_seconds = 60);
  bool enabled() const { return style_ != Style::kOff; }
  // Plain lines (a file or a pipe, or log.progress: lines) rather than the bar.
  bool plain_lines() const { return style_ == Style::kLines; }
  void start(int64_t epoch, int64_t epochs, int64_t steps);
  // The validation after the epoch last started.
  void start_validation(int64_t steps);
  // `values` is only called when the bar is redrawn.
  void update(int64_t step, int64_t samples, const RunningValues& values);
  void finish();

 private:
  enum class Style { kOff, kBar, kLines };
  void begin(const char* phase, int64_t steps);
  Style style_;
  double line_seconds_;
  std::string phase_;
  int64_t epoch_ = 0, epochs_ = 0, steps_ = 0;
  Stopwatch clock_;
  double last_draw_ = -1;
  Stopwatch since_line_;  // across phases: a line every line_seconds_, however short the epochs
};

// The columns of the terminal on stderr; COLUMNS, else 80, when it has none.
int terminal_width();

}  // namespace trainer
