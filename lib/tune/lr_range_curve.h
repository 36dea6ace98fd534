#pragma once
// Reading a learning-rate range test's curve: the loss smoothed, where it ran
// away, and the rate to suggest. Torch-free.
#include <cstdint>
#include <string>
#include <vector>

namespace trainer {

struct LrRangePoint {
  double lr = 0;
  double loss = 0;      // the step's batch mean
  double smoothed = 0;  // exponential moving average (0.98), bias-corrected
};

struct LrRangeCurve {
  std::vector<LrRangePoint> points;
  int64_t steps_planned = 0;
  bool diverged = false;  // stopped early: the smoothed loss passed 4 x its lowest, or a loss was not finite
  // The rate where the smoothed loss falls fastest against log(lr), the
  // first and last tenth of the steps aside (their estimates are noisy);
  // 0 when too few steps were taken to say.
  double suggested_lr = 0;
  double lowest_loss_lr = 0;  // where the smoothed loss was lowest
};

// The rates of a test: `steps` from `min_lr` to `max_lr`, exponentially spaced.
std::vector<double> lr_range_rates(double min_lr, double max_lr, int64_t steps);

// Adds a step's loss; returns false when the test should stop (the loss
// ran away), in which case the point is not kept.
bool add_lr_range_point(LrRangeCurve& curve, double lr, double loss);

// Fills suggested_lr and lowest_loss_lr from the points.
void suggest_lr(LrRangeCurve& curve);

// What `trainer tune lr` prints: the suggestion, how the test ended, and how
// to use it.
std::string format_lr_range_text(const LrRangeCurve& curve);
// The same as one JSON object on one line, with every point.
std::string format_lr_range_json(const LrRangeCurve& curve);
// A page with the curve (loss and smoothed loss against log10 of the rate)
// and the suggestion marked.
std::string lr_range_html(const LrRangeCurve& curve, const std::string& experiment);

}  // namespace trainer
