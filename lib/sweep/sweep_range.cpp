#include "sweep/sweep_range.h"

#include <cmath>
#include <cstdio>
#include <regex>

#include "util/error.h"

namespace trainer {
namespace {

// In [0, 1), from the top 53 bits: the same on every standard library,
// unlike std::uniform_real_distribution.
double unit_interval(std::mt19937_64& generator) { return static_cast<double>(generator() >> 11) * 0x1.0p-53; }

std::string three_digits(double value) {
  char text[40];
  std::snprintf(text, sizeof text, "%.3g", value);
  return text;
}

}  // namespace

std::optional<SweepRange> parse_sweep_range(const std::string& value, const std::string& option) {
  static const std::regex written(R"(\s*(uniform|loguniform|int)\s*\(\s*([^,()\s]+)\s*,\s*([^,()\s]+)\s*\)\s*)");
  std::smatch match;
  if (!std::regex_match(value, match, written)) return std::nullopt;
  const std::string kind = match[1];
  SweepRange range;
  range.kind = kind == "uniform" ? SweepRange::Kind::kUniform
               : kind == "loguniform" ? SweepRange::Kind::kLogUniform
                                      : SweepRange::Kind::kInt;
  const auto bound = [&](const std::string& text) {
    char* end = nullptr;
    const double number = std::strtod(text.c_str(), &end);
    if (end != text.c_str() + text.size() || !std::isfinite(number))
      throw UsageError(option + ": " + text + " is not a number", "write the range as " + kind + "(LOW,HIGH)");
    if (range.kind == SweepRange::Kind::kInt && (number != std::floor(number) || std::fabs(number) > 1e15))
      throw UsageError(option + ": int(LOW,HIGH) takes whole numbers, not " + text);
    return number;
  };
  range.low = bound(match[2]);
  range.high = bound(match[3]);
  if (!(range.low < range.high))
    throw UsageError(option + ": the range's low end must be below its high end",
                     "write it as " + kind + "(LOW,HIGH), for one value give the value itself");
  if (range.kind == SweepRange::Kind::kLogUniform && range.low <= 0)
    throw UsageError(option + ": loguniform needs a low end above 0", "or draw from uniform(LOW,HIGH)");
  return range;
}

std::string draw_from_range(const SweepRange& range, std::mt19937_64& generator) {
  const double u = unit_interval(generator);
  switch (range.kind) {
    case SweepRange::Kind::kUniform: return three_digits(range.low + u * (range.high - range.low));
    case SweepRange::Kind::kLogUniform:
      return three_digits(std::exp(std::log(range.low) + u * (std::log(range.high) - std::log(range.low))));
    case SweepRange::Kind::kInt: {
      const double span = range.high - range.low + 1;
      const auto value = static_cast<int64_t>(range.low + std::floor(u * span));
      return std::to_string(value);
    }
  }
  return {};
}

}  // namespace trainer
