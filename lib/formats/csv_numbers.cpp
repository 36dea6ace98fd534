#include "formats/csv_numbers.h"

#include <cmath>
#include <cstdlib>
#include <limits>

namespace trainer {

bool fits_float32(double value) {
  return std::isfinite(value) && std::fabs(value) <= std::numeric_limits<float>::max();
}

std::optional<double> float32_field(const std::string& field) {
  const size_t begin = field.find_first_not_of(" \t"), end = field.find_last_not_of(" \t");
  if (begin == std::string::npos) return std::nullopt;
  const std::string trimmed = field.substr(begin, end - begin + 1);
  char* stop = nullptr;
  const double value = std::strtod(trimmed.c_str(), &stop);
  if (stop != trimmed.c_str() + trimmed.size() || !fits_float32(value)) return std::nullopt;
  return value;
}

std::string why_not_float32(const std::string& field) {
  char* stop = nullptr;
  const std::string text = field.substr(0, 64);
  const double value = std::strtod(text.c_str(), &stop);
  if (stop != text.c_str() && std::isfinite(value) && std::fabs(value) > std::numeric_limits<float>::max())
    return "beyond the float32 range (+-3.4e38)";
  return std::isfinite(value) || stop == text.c_str() ? "not a number" : "not a finite number";
}

}  // namespace trainer
