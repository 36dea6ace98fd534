#pragma once
// A sweep axis given as a range to draw from rather than a list:
// `uniform(A,B)`, `loguniform(A,B)` (uniform in log space, as learning rates
// want) and `int(A,B)` (both ends included). Drawn with a generator whose
// sequence the C++ standard fixes, so a seed gives the same points on every
// machine. Torch-free.
#include <cstdint>
#include <optional>
#include <random>
#include <string>

namespace trainer {

struct SweepRange {
  enum class Kind { kUniform, kLogUniform, kInt };
  Kind kind = Kind::kUniform;
  double low = 0, high = 0;
};

// The range `value` writes (spaces allowed), or nothing when it is not
// written as one. Throws UsageError, naming `option`, for a range with bad
// bounds (low not below high, loguniform's low not above 0, int's bounds
// not integers).
std::optional<SweepRange> parse_sweep_range(const std::string& value, const std::string& option);

// One value of the range, as the text the point is trained with: a real
// number with 3 significant digits (what the point's name shows is exactly
// what it trains with), an integer as itself.
std::string draw_from_range(const SweepRange& range, std::mt19937_64& generator);

}  // namespace trainer
