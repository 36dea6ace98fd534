#include "report/svg_chart.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

namespace trainer {
namespace {

std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", value);
  return text;
}

// A tick label: as few digits as tell the ticks apart.
std::string tick_label(double value, double step) {
  char text[32];
  if (value == 0) return "0";
  const double magnitude = std::fabs(value);
  if (magnitude >= 1e5 || magnitude < 1e-3) {
    std::snprintf(text, sizeof text, "%.2g", value);
  } else {
    const int decimals = std::max(0, static_cast<int>(std::ceil(-std::log10(step) - 1e-9)));
    std::snprintf(text, sizeof text, "%.*f", decimals, value);
  }
  return text;
}

}  // namespace

std::string xml_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

const std::string& run_color(size_t index) {
  static const std::array<std::string, 10> colors{"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                                  "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
  return colors[index % colors.size()];
}

std::vector<double> nice_ticks(double low, double high, int target, double min_step) {
  if (!(high > low) || !std::isfinite(low) || !std::isfinite(high)) return {low};
  if (!std::isfinite(high - low)) {
    // -1e308 to 1e308: the span overflows; find the ticks of half the range.
    std::vector<double> ticks = nice_ticks(low / 2, high / 2, target, min_step / 2);
    for (double& tick : ticks) tick = std::clamp(tick * 2, -std::numeric_limits<double>::max(),
                                                 std::numeric_limits<double>::max());
    return ticks;
  }
  const double raw = std::max(min_step, (high - low) / std::max(1, target));
  const double exponent = std::floor(std::log10(raw));
  double factor = 10;
  for (const double candidate : {1.0, 2.0, 5.0})
    if (raw <= candidate * std::pow(10.0, exponent) * (1 + 1e-9)) {
      factor = candidate;
      break;
    }
  // k x factor x 10^exponent, divided rather than multiplied by a power of
  // ten below 1, so that 3 x 0.2 is 0.6 and not 0.6000000000000001.
  const double scale = std::pow(10.0, std::fabs(exponent));
  const auto tick_at = [&](double k) { return exponent < 0 ? k * factor / scale : k * factor * scale; };
  const double step = tick_at(1);
  std::vector<double> ticks;
  // Bounded: far from zero (1e300 to 1e300 + 1e285) k + 1 == k, and a loop
  // on k alone would never end.
  for (double k = std::ceil(low / step - 1e-9); tick_at(k) <= high + step * 1e-9 && ticks.size() < 64 && k + 1 != k;
       k += 1)
    ticks.push_back(k == 0 ? 0.0 : tick_at(k));
  if (ticks.empty()) ticks = {low, high};
  return ticks;
}

namespace {

// The legend's 12 px text, measured as DejaVu Sans (Debian's sans-serif)
// draws it, a little generously: narrow and wide letters apart, anything
// beyond ASCII as a wide one. Exact widths need the browser; these keep
// entries from touching.
double text_width(const std::string& text) {
  double width = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if ((c & 0xC0) == 0x80) continue;  // a UTF-8 continuation byte
    if (c >= 0x80) width += 10;
    else if (std::strchr("il.,;:'|!jftrI() []", c)) width += 4.2;
    else if (std::strchr("mwMW@%", c)) width += 11;
    else if (std::isupper(c) || std::strchr("=+<>~_#&", c)) width += 8.8;
    else width += 7.4;
  }
  return width;
}

constexpr double kSwatch = 28;  // the line sample and its gap before the text
constexpr double kEntryGap = 18;
constexpr double kRowHeight = 18;

// The start of `text` and its end (where a series' label says "training" or
// "validation") with an ellipsis between, in `room` pixels.
std::string cut_in_the_middle(const std::string& text, double room) {
  const auto is_continuation = [&](size_t i) { return (static_cast<unsigned char>(text[i]) & 0xC0) == 0x80; };
  size_t tail = text.size();  // text[tail..] is kept
  while (tail > 0) {
    size_t before = tail - 1;
    while (before > 0 && is_continuation(before)) --before;
    if (text_width(text.substr(before)) > room * 0.45) break;
    tail = before;
  }
  size_t head = 0;  // text[..head] is kept
  while (head < tail) {
    size_t after = head + 1;
    while (after < tail && is_continuation(after)) ++after;
    if (text_width(text.substr(0, after) + "\u2026" + text.substr(tail)) > room) break;
    head = after;
  }
  return text.substr(0, head) + "\u2026" + text.substr(tail);
}

struct LegendEntry {
  double x = 0, row = 0;
  std::string text;  // the label, cut to fit a row with an ellipsis when it must be
  bool cut = false;
};

// Entries left to right, a new row when the next would pass the plot's
// right edge; a label longer than a whole row is cut in the middle to fit it.
std::vector<LegendEntry> lay_out_legend(const std::vector<ChartSeries>& series, double left, double plot_w) {
  std::vector<LegendEntry> entries;
  double x = left, row = 0;
  for (const ChartSeries& s : series) {
    LegendEntry entry;
    entry.text = s.label;
    const double room = plot_w - kSwatch;
    if (text_width(entry.text) > room) {
      entry.text = cut_in_the_middle(s.label, room);
      entry.cut = true;
    }
    const double width = kSwatch + text_width(entry.text);
    if (x > left && x + width > left + plot_w) {
      x = left;
      row += 1;
    }
    entry.x = x;
    entry.row = row;
    x += width + kEntryGap;
    entries.push_back(std::move(entry));
  }
  return entries;
}

}  // namespace

std::string render_svg(const LineChart& chart, int width, int height) {
  const double left = 64, right = 16, top = 30;
  const std::vector<LegendEntry> legend = lay_out_legend(chart.series, left, width - left - right);
  const double legend_rows = legend.empty() ? 0 : legend.back().row + 1;
  const double bottom = 44 + kRowHeight * legend_rows;
  const double plot_w = width - left - right, plot_h = height - top - bottom;

  double x_min = std::numeric_limits<double>::infinity(), x_max = -x_min, y_min = x_min, y_max = -x_min;
  for (const auto& series : chart.series)
    for (const auto& [x, y] : series.points) {
      if (!std::isfinite(x) || !std::isfinite(y)) continue;
      x_min = std::min(x_min, x), x_max = std::max(x_max, x);
      y_min = std::min(y_min, y), y_max = std::max(y_max, y);
    }
  const bool empty = !std::isfinite(x_min);
  if (!empty) {
    if (chart.y_from_zero) y_min = std::min(0.0, y_min);
    // Widening a single value stays finite however large it is.
    const auto widen = [](double& low, double& high, double pad) {
      low = std::max(low - pad, -std::numeric_limits<double>::max());
      high = std::min(high + pad, std::numeric_limits<double>::max());
    };
    if (x_max == x_min) widen(x_min, x_max, std::max(1.0, std::fabs(x_max) * 1e-6));
    if (y_max == y_min) widen(y_min, y_max, y_max == 0 ? 1 : std::fabs(y_max) * 0.1);
  }
  const std::vector<double> x_ticks =
      empty ? std::vector<double>{} : nice_ticks(x_min, x_max, 5, chart.x_integer ? 1.0 : 0.0);
  const std::vector<double> y_ticks = empty ? std::vector<double>{} : nice_ticks(y_min, y_max);
  if (!empty) {  // the axes end on ticks
    y_min = std::min(y_min, y_ticks.front()), y_max = std::max(y_max, y_ticks.back());
  }
  // Halved before subtracting: from -1e308 to 1e308 the span itself overflows.
  const auto fraction = [](double v, double low, double high) { return (v / 2 - low / 2) / (high / 2 - low / 2); };
  const auto px = [&](double x) { return left + fraction(x, x_min, x_max) * plot_w; };
  const auto py = [&](double y) { return top + plot_h - fraction(y, y_min, y_max) * plot_h; };

  std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" width=\"" + std::to_string(width) +
                    "\" height=\"" + std::to_string(height) + "\" viewBox=\"0 0 " + std::to_string(width) + " " +
                    std::to_string(height) + "\" role=\"img\" aria-label=\"" + xml_escape(chart.title) + "\">\n";
  svg += "<text x=\"" + number(left) + "\" y=\"18\" class=\"title\">" + xml_escape(chart.title) + "</text>\n";
  svg += "<rect class=\"plot\" x=\"" + number(left) + "\" y=\"" + number(top) + "\" width=\"" + number(plot_w) +
         "\" height=\"" + number(plot_h) + "\"/>\n";
  if (empty) {
    svg += "<text x=\"" + number(left + plot_w / 2) + "\" y=\"" + number(top + plot_h / 2) +
           "\" class=\"empty\" text-anchor=\"middle\">no data yet</text>\n";
  }
  const double step_x = x_ticks.size() > 1 ? x_ticks[1] - x_ticks[0] : 1, step_y = y_ticks.size() > 1 ? y_ticks[1] - y_ticks[0] : 1;
  for (const double tick : y_ticks) {
    svg += "<line class=\"grid\" x1=\"" + number(left) + "\" x2=\"" + number(left + plot_w) + "\" y1=\"" +
           number(py(tick)) + "\" y2=\"" + number(py(tick)) + "\"/>";
    svg += "<text class=\"tick\" x=\"" + number(left - 6) + "\" y=\"" + number(py(tick) + 4) +
           "\" text-anchor=\"end\">" + tick_label(tick, step_y) + "</text>\n";
  }
  for (const double tick : x_ticks) {
    svg += "<line class=\"axis\" x1=\"" + number(px(tick)) + "\" x2=\"" + number(px(tick)) + "\" y1=\"" +
           number(top + plot_h) + "\" y2=\"" + number(top + plot_h + 4) + "\"/>";
    svg += "<text class=\"tick\" x=\"" + number(px(tick)) + "\" y=\"" + number(top + plot_h + 16) +
           "\" text-anchor=\"middle\">" + tick_label(tick, step_x) + "</text>\n";
  }
  svg += "<text class=\"label\" x=\"" + number(left + plot_w / 2) + "\" y=\"" + number(top + plot_h + 32) +
         "\" text-anchor=\"middle\">" + xml_escape(chart.x_label) + "</text>\n";
  svg += "<text class=\"label\" transform=\"translate(14," + number(top + plot_h / 2) +
         ") rotate(-90)\" text-anchor=\"middle\">" + xml_escape(chart.y_label) + "</text>\n";

  for (const auto& series : chart.series) {
    if (empty) break;
    // A polyline per run of finite points: a NaN (a diverged loss) is a gap.
    std::vector<std::string> runs(1);
    std::string dots;
    for (const auto& [x, y] : series.points) {
      if (!std::isfinite(x) || !std::isfinite(y)) {
        if (!runs.back().empty()) runs.emplace_back();
        continue;
      }
      runs.back() += number(px(x)) + "," + number(py(y)) + " ";
      if (series.markers)
        dots += "<circle cx=\"" + number(px(x)) + "\" cy=\"" + number(py(y)) + "\" r=\"2.5\" fill=\"" +
                series.color + "\"/>";
    }
    for (const auto& points : runs)
      if (!points.empty())
        svg += "<polyline class=\"series\" fill=\"none\" stroke=\"" + series.color + "\" stroke-width=\"2\"" +
               (series.dashed ? " stroke-dasharray=\"6 4\"" : "") + " points=\"" + points + "\"/>\n";
    svg += dots + "\n";
  }
  // The legend under the axis label, laid out so that no entry runs into the next.
  for (size_t i = 0; i < chart.series.size(); ++i) {
    const auto& series = chart.series[i];
    const double x = legend[i].x;
    const double y = top + plot_h + 48 + kRowHeight * legend[i].row;
    svg += "<line x1=\"" + number(x) + "\" x2=\"" + number(x + 22) + "\" y1=\"" + number(y - 4) + "\" y2=\"" +
           number(y - 4) + "\" stroke=\"" + series.color + "\" stroke-width=\"2\"" +
           (series.dashed ? " stroke-dasharray=\"6 4\"" : "") + "/>";
    // A cut label keeps its whole text as the entry's tooltip.
    svg += "<text class=\"legend\" x=\"" + number(x + kSwatch) + "\" y=\"" + number(y) + "\">" +
           (legend[i].cut ? "<title>" + xml_escape(series.label) + "</title>" : "") + xml_escape(legend[i].text) +
           "</text>\n";
  }
  svg += "</svg>\n";
  return svg;
}

}  // namespace trainer
