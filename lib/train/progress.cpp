#include "train/progress.h"

#include <unistd.h>

#include <cstdio>

namespace trainer {

ProgressBar::ProgressBar(ProgressMode mode, bool quiet)
    : enabled_(!quiet && (mode == ProgressMode::kAlways || (mode == ProgressMode::kAuto && isatty(STDERR_FILENO)))) {}

void ProgressBar::start(int64_t epoch, int64_t epochs, int64_t steps) {
  epoch_ = epoch;
  epochs_ = epochs;
  steps_ = steps;
  epoch_clock_.reset();
  last_draw_ = -1;
}

void ProgressBar::update(int64_t step, int64_t samples, const std::function<double()>& running_loss) {
  if (!enabled_) return;
  const double now = epoch_clock_.seconds();
  if (step < steps_ && last_draw_ >= 0 && now - last_draw_ < 0.25) return;
  last_draw_ = now;
  constexpr int kWidth = 24;
  const int filled = steps_ > 0 ? static_cast<int>(kWidth * step / steps_) : kWidth;
  std::string bar(static_cast<size_t>(filled), '=');
  if (filled < kWidth) bar += '>' + std::string(static_cast<size_t>(kWidth - filled - 1), ' ');
  const double rate = now > 0 ? samples / now : 0;
  const double eta = step > 0 ? now * static_cast<double>(steps_ - step) / static_cast<double>(step) : 0;
  std::fprintf(stderr, "\rEpoch %lld/%lld [%s] %lld/%lld  %.0f samples/s  ETA %02d:%02d  loss %.4f\x1b[K",
               static_cast<long long>(epoch_), static_cast<long long>(epochs_), bar.c_str(),
               static_cast<long long>(step), static_cast<long long>(steps_), rate, static_cast<int>(eta) / 60,
               static_cast<int>(eta) % 60, running_loss());
  std::fflush(stderr);
}

void ProgressBar::finish() {
  if (!enabled_) return;
  std::fprintf(stderr, "\r\x1b[K");
  std::fflush(stderr);
}

}  // namespace trainer
