#pragma once
// A line chart as inline SVG: no scripts, no fonts or styles from outside,
// so the page that holds it is complete on its own. Torch-free.
#include <string>
#include <utility>
#include <vector>

namespace trainer {

struct ChartSeries {
  std::string label;  // in the legend
  std::string color;  // "#1f77b4"
  bool dashed = false;
  bool markers = false;  // a dot at every point (few points: epochs)
  std::vector<std::pair<double, double>> points;  // (x, y); non-finite y are gaps
};

struct LineChart {
  std::string title;
  std::string x_label;
  std::string y_label;
  std::vector<ChartSeries> series;
  bool y_from_zero = false;  // shares, rates: the axis starts at 0
  bool x_integer = false;    // epochs: whole-number ticks only
};

// The chart as an <svg> element (width x height pixels), with axes, "nice"
// tick values, and a legend under the plot. A chart without any finite
// point says so in its plot area.
std::string render_svg(const LineChart& chart, int width = 540, int height = 320);

// About `target` evenly spaced round values (1, 2 or 5 times a power of ten)
// covering [low, high], for axis ticks.
std::vector<double> nice_ticks(double low, double high, int target = 5, double min_step = 0);

// Text safe inside XML and HTML elements and attribute values.
std::string xml_escape(const std::string& text);

// The colour of the i-th run (Tableau's ten, then repeating).
const std::string& run_color(size_t index);

}  // namespace trainer
