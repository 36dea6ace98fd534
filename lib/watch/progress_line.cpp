#include "watch/progress_line.h"

#include <algorithm>
#include <cstdio>

namespace trainer {
namespace {

constexpr int kMinBar = 10;
constexpr int kMaxBar = 30;

std::string format_value(const std::string& name, double value) {
  char text[64];
  std::snprintf(text, sizeof text, "%s %.4f", name.c_str(), value);
  return text;
}

std::string bar_of(int64_t step, int64_t steps, int width) {
  const int inner = width - 2;
  const int filled = steps > 0 ? static_cast<int>(static_cast<double>(inner) * std::min(step, steps) / steps) : inner;
  std::string bar = "[" + std::string(static_cast<size_t>(filled), '=');
  if (filled < inner) bar += '>' + std::string(static_cast<size_t>(inner - filled - 1), ' ');
  return bar + "]";
}

// The line's parts, in display order; `drop` ranks them: 0 is never
// dropped, higher goes first.
struct Part {
  std::string text;
  int drop;
  bool is_bar = false;
};

}  // namespace

std::string format_duration(double seconds) {
  const long total = seconds > 0 && seconds < 1e9 ? static_cast<long>(seconds + 0.5) : 0;
  char text[32];
  if (total >= 3600) std::snprintf(text, sizeof text, "%ld:%02ld:%02ld", total / 3600, total / 60 % 60, total % 60);
  else std::snprintf(text, sizeof text, "%02ld:%02ld", total / 60, total % 60);
  return text;
}

std::string format_progress_plain(const ProgressState& state) {
  const double eta = state.step > 0 ? state.elapsed_seconds * static_cast<double>(state.steps - state.step) /
                                          static_cast<double>(state.step)
                                    : 0;
  std::string line = state.phase + " step " + std::to_string(state.step) + "/" + std::to_string(state.steps) + " " +
                     format_duration(state.elapsed_seconds) + " ETA " + format_duration(eta);
  for (size_t i = 0; i < state.values.size() && i < 2; ++i)
    line += " " + format_value(state.values[i].first, state.values[i].second);
  char rate[48];
  std::snprintf(rate, sizeof rate, " %.0f samples/s", state.samples_per_second);
  return line + rate;
}

std::string format_progress_line(const ProgressState& state, int width) {
  const int room = std::max(1, width - 1);
  std::vector<Part> parts;
  parts.push_back({state.phase, 0});
  parts.push_back({"", 4, true});
  parts.push_back({std::to_string(state.step) + "/" + std::to_string(state.steps), 1});
  const double eta = state.step > 0 ? state.elapsed_seconds * static_cast<double>(state.steps - state.step) /
                                          static_cast<double>(state.step)
                                    : 0;
  parts.push_back({format_duration(state.elapsed_seconds) + " ETA " + format_duration(eta), 2});
  if (!state.values.empty()) parts.push_back({format_value(state.values[0].first, state.values[0].second), 3});
  if (state.values.size() > 1) parts.push_back({format_value(state.values[1].first, state.values[1].second), 5});
  char rate[48];
  std::snprintf(rate, sizeof rate, "%.0f samples/s", state.samples_per_second);
  parts.push_back({rate, 6});

  const auto length_without_bar = [&] {
    int length = -1;  // n parts, n - 1 spaces
    for (const Part& part : parts) length += static_cast<int>(part.text.size()) + 1;
    return length;
  };
  const auto has_bar = [&] { return std::any_of(parts.begin(), parts.end(), [](const Part& p) { return p.is_bar; }); };
  // Leave out parts, least useful first, until the rest and a short bar fit.
  while (length_without_bar() + (has_bar() ? kMinBar : 0) > room) {
    auto last = std::max_element(parts.begin(), parts.end(), [](const Part& a, const Part& b) { return a.drop < b.drop; });
    if (last->drop == 0) break;
    parts.erase(last);
  }
  const int bar_width = std::min(kMaxBar, room - length_without_bar());
  std::string line;
  for (const Part& part : parts) {
    if (part.is_bar && bar_width < kMinBar) continue;
    if (!line.empty()) line += ' ';
    line += part.is_bar ? bar_of(state.step, state.steps, bar_width) : part.text;
  }
  if (static_cast<int>(line.size()) > room) line.resize(static_cast<size_t>(room));
  return line;
}

}  // namespace trainer
