#pragma once
// Value checks attached to config fields. A check returns "" when the value is
// fine, else what was expected ("an integer >= 1"), which the reader turns
// into "file:line:col: key: expected ..., got ...".
#include <cstdint>
#include <functional>
#include <sstream>
#include <string>

#include "spec/field_types.h"

namespace trainer {

template <class T>
using Check = std::function<std::string(const T&)>;

inline Check<int64_t> at_least(int64_t min) {
  return [min](const int64_t& x) { return x >= min ? "" : "an integer >= " + std::to_string(min); };
}

// A count with a floor users meet ("an integer >= 1") and a ceiling that only
// keeps arithmetic on it safe.
inline Check<int64_t> count_in_range(int64_t min, int64_t max) {
  return [min, max](const int64_t& x) {
    if (x < min) return "an integer >= " + std::to_string(min);
    return x <= max ? std::string() : "an integer from " + std::to_string(min) + " to " + std::to_string(max);
  };
}

inline Check<int64_t> int_in_range(int64_t min, int64_t max) {
  return [min, max](const int64_t& x) {
    return (x >= min && x <= max) ? ""
                                   : "an integer from " + std::to_string(min) + " to " + std::to_string(max);
  };
}

inline Check<double> positive() {
  return [](const double& x) { return x > 0 ? "" : std::string("a number > 0"); };
}

inline Check<double> non_negative() {
  return [](const double& x) { return x >= 0 ? "" : std::string("a number >= 0"); };
}

// [0, 1) — probabilities such as dropout rates and momenta.
inline Check<double> unit_interval() {
  return [](const double& x) { return (x >= 0 && x < 1) ? "" : std::string("a number in [0, 1)"); };
}

// One directory name: run directories are made under log.dir with it, and
// "../x" or "a/b" would put them elsewhere; a newline or an escape code
// would break (or take over) the tables that list runs. What it should be,
// or "" when it is one.
inline std::string directory_name_problem(const std::string& s, bool may_be_empty) {
  bool printable = true;
  for (const char c : s) printable = printable && static_cast<unsigned char>(c) >= 0x20 && c != 0x7f;
  const bool ok = (s.empty() && may_be_empty) ||
                  (!s.empty() && s != "." && s != ".." && s.find('/') == std::string::npos && printable);
  return ok ? std::string() : std::string("a directory name on one line of printable text, without '/' (not . or ..)");
}

inline Check<std::string> directory_name(bool may_be_empty) {
  return [may_be_empty](const std::string& s) { return directory_name_problem(s, may_be_empty); };
}

inline Check<std::string> not_empty() {
  return [](const std::string& s) { return s.empty() ? std::string("a non-empty string") : ""; };
}

// Both ends of a span within [min, max].
inline Check<Span> span_within(double min, double max) {
  return [min, max](const Span& x) {
    if (x.low >= min && x.high <= max) return std::string();
    std::ostringstream text;
    text << "numbers from " << min << " to " << max;
    return text.str();
  };
}

}  // namespace trainer
