#include "watch/progress.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "util/text.h"
#include "watch/progress_line.h"

namespace trainer {

int terminal_width() {
  winsize size{};
  if (ioctl(STDERR_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) return size.ws_col;
  if (const char* columns = std::getenv("COLUMNS"); columns && std::atoi(columns) > 0) return std::atoi(columns);
  return 80;
}

ProgressBar::ProgressBar(ProgressMode mode, bool quiet, double line_seconds)
    : style_(quiet || mode == ProgressMode::kNever ? Style::kOff
             : mode == ProgressMode::kAlways || (mode == ProgressMode::kAuto && isatty(STDERR_FILENO)) ? Style::kBar
                                                                                                     : Style::kLines),
      line_seconds_(line_seconds) {}

void ProgressBar::start(int64_t epoch, int64_t epochs, int64_t steps) {
  epoch_ = epoch;
  epochs_ = epochs;
  begin("Epoch", steps);
}

void ProgressBar::start_validation(int64_t steps) { begin("Valid", steps); }

void ProgressBar::begin(const char* phase, int64_t steps) {
  phase_ = std::string(phase) + " " + std::to_string(epoch_) + "/" + std::to_string(epochs_);
  steps_ = steps;
  clock_.reset();
  last_draw_ = -1;
}

void ProgressBar::update(int64_t step, int64_t samples, const RunningValues& values) {
  if (style_ == Style::kOff) return;
  const double now = clock_.seconds();
  if (style_ == Style::kLines) {
    // The epoch's end has its record; a line then would repeat it.
    if (step >= steps_ || since_line_.seconds() < line_seconds_) return;
    since_line_.reset();
  } else {
    if (step < steps_ && last_draw_ >= 0 && now - last_draw_ < 0.25) return;
    last_draw_ = now;
  }
  ProgressState state;
  state.phase = phase_;
  state.step = step;
  state.steps = steps_;
  state.elapsed_seconds = now;
  state.samples_per_second = now > 0 ? static_cast<double>(samples) / now : 0;
  if (values) state.values = values();
  if (style_ == Style::kLines) {
    std::fprintf(stderr, "[%s progress] %s\n", local_time_hms().c_str(), format_progress_plain(state).c_str());
    std::fflush(stderr);
    return;
  }
  // Asked at every redraw: a resized terminal gets lines that fit.
  const std::string line = format_progress_line(state, terminal_width());
  std::fprintf(stderr, "\r%s\x1b[K", line.c_str());
  std::fflush(stderr);
}

void ProgressBar::finish() {
  if (style_ != Style::kBar) return;
  std::fprintf(stderr, "\r\x1b[K");
  std::fflush(stderr);
}

}  // namespace trainer
