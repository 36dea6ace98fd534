#include "tune/lr_range_curve.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include <nlohmann/json.hpp>

#include "report/svg_chart.h"
#include "util/json.h"

namespace trainer {
namespace {

constexpr double kSmoothing = 0.98;  // fastai's and Lightning's beta
constexpr double kRunaway = 4;       // stop past 4 x the lowest smoothed loss, as both do

std::string format_lr(double lr) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", lr);
  return text;
}

}  // namespace

std::vector<double> lr_range_rates(double min_lr, double max_lr, int64_t steps) {
  std::vector<double> rates;
  for (int64_t i = 0; i < steps; ++i) {
    const double t = steps > 1 ? static_cast<double>(i) / static_cast<double>(steps - 1) : 0.0;
    rates.push_back(min_lr * std::pow(max_lr / min_lr, t));
  }
  return rates;
}

bool add_lr_range_point(LrRangeCurve& curve, double lr, double loss) {
  if (!std::isfinite(loss)) {
    curve.diverged = true;
    return false;
  }
  const size_t n = curve.points.size();
  // The average before bias correction, recovered from the last point.
  const double last_average = n == 0 ? 0.0 : curve.points.back().smoothed * (1 - std::pow(kSmoothing, n));
  const double average = kSmoothing * last_average + (1 - kSmoothing) * loss;
  const double smoothed = average / (1 - std::pow(kSmoothing, n + 1));
  double lowest = std::numeric_limits<double>::infinity();
  for (const LrRangePoint& p : curve.points) lowest = std::min(lowest, p.smoothed);
  if (n > 0 && smoothed > kRunaway * lowest) {
    curve.diverged = true;
    return false;
  }
  curve.points.push_back({lr, loss, smoothed});
  return true;
}

void suggest_lr(LrRangeCurve& curve) {
  const auto& p = curve.points;
  curve.suggested_lr = curve.lowest_loss_lr = 0;
  if (p.empty()) return;
  curve.lowest_loss_lr =
      std::min_element(p.begin(), p.end(), [](const auto& a, const auto& b) { return a.smoothed < b.smoothed; })->lr;
  // The slope of the smoothed loss against log10(lr), by central differences
  // (numpy.gradient's), over the points between the first and last tenth.
  const size_t skip_begin = p.size() / 10, skip_end = p.size() / 10;
  if (p.size() < skip_begin + skip_end + 3) return;
  double steepest = std::numeric_limits<double>::infinity();
  const size_t end = p.size() - std::max<size_t>(skip_end, 1);  // i + 1 stays a point
  for (size_t i = std::max<size_t>(skip_begin, 1); i < end; ++i) {
    const double slope =
        (p[i + 1].smoothed - p[i - 1].smoothed) / (std::log10(p[i + 1].lr) - std::log10(p[i - 1].lr));
    if (slope < steepest) {
      steepest = slope;
      curve.suggested_lr = p[i].lr;
    }
  }
  if (!(steepest < 0)) curve.suggested_lr = 0;  // the loss never fell: nothing to suggest
}

std::string format_lr_range_text(const LrRangeCurve& curve) {
  std::string out;
  const double first = curve.points.empty() ? 0 : curve.points.front().lr;
  const double last = curve.points.empty() ? 0 : curve.points.back().lr;
  out += "learning-rate range test: " + std::to_string(curve.points.size()) + " of " +
         std::to_string(curve.steps_planned) + " steps, lr " + format_lr(first) + " to " + format_lr(last) +
         (curve.diverged ? ", stopped where the loss ran away" : "") + "\n";
  if (curve.suggested_lr > 0) {
    out += "suggested lr: " + format_lr(curve.suggested_lr) +
           " (where the smoothed loss falls fastest); the lowest loss was at " + format_lr(curve.lowest_loss_lr) + "\n";
    out += "use it with: --set optimizer.lr=" + format_lr(curve.suggested_lr) + "\n";
  } else {
    out += "no suggestion: the loss did not fall over the range; widen it (--min-lr, --max-lr) or take more steps\n";
  }
  return out;
}

std::string format_lr_range_json(const LrRangeCurve& curve) {
  nlohmann::ordered_json json;
  json["suggested_lr"] = curve.suggested_lr > 0 ? json_number(curve.suggested_lr) : nlohmann::ordered_json(nullptr);
  json["lowest_loss_lr"] = curve.points.empty() ? nlohmann::ordered_json(nullptr) : json_number(curve.lowest_loss_lr);
  json["steps"] = curve.points.size();
  json["steps_planned"] = curve.steps_planned;
  json["diverged"] = curve.diverged;
  json["points"] = nlohmann::ordered_json::array();
  for (const LrRangePoint& p : curve.points)
    json["points"].push_back({{"lr", json_number(p.lr)}, {"loss", json_number(p.loss)}, {"smoothed", json_number(p.smoothed)}});
  return json_line(json);
}

std::string lr_range_html(const LrRangeCurve& curve, const std::string& experiment) {
  LineChart chart;
  chart.title = "loss by learning rate";
  chart.x_label = "log10 learning rate";
  chart.y_label = "loss";
  ChartSeries raw{"loss (each step)", "#9aa2b1", false, false, {}};
  ChartSeries smooth{"smoothed loss", run_color(0), false, false, {}};
  for (const LrRangePoint& p : curve.points) {
    raw.points.emplace_back(std::log10(p.lr), p.loss);
    smooth.points.emplace_back(std::log10(p.lr), p.smoothed);
  }
  chart.series = {raw, smooth};
  if (curve.suggested_lr > 0) {
    // The suggestion, as a marked point on the smoothed curve.
    ChartSeries mark{"suggested lr " + format_lr(curve.suggested_lr), run_color(1), false, true, {}};
    for (const LrRangePoint& p : curve.points)
      if (p.lr == curve.suggested_lr) mark.points.emplace_back(std::log10(p.lr), p.smoothed);
    chart.series.push_back(mark);
  }
  return "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>trainer tune lr " +
         xml_escape(experiment) +
         "</title><style>body { font-family: system-ui, sans-serif; margin: 32px; color: #1d2330; } "
         "svg .title { font-size: 14px; font-weight: 600; fill: #1d2330; } svg .plot { fill: #fafbfc; stroke: #c9ced8; } "
         "svg .grid { stroke: #e6e9ef; } svg .axis { stroke: #9aa2b1; } "
         "svg .tick, svg .legend, svg .label { font-size: 12px; fill: #3b4252; }</style></head><body>\n<h1>" +
         xml_escape(experiment) + ": learning-rate range test</h1>\n<pre>" + xml_escape(format_lr_range_text(curve)) +
         "</pre>\n" + render_svg(chart, 720, 400) + "</body></html>\n";
}

}  // namespace trainer
