#include "util/json.h"

#include <cmath>
#include <cstdlib>

#include <nlohmann/json.hpp>

#include "util/text.h"

namespace trainer {

nlohmann::ordered_json json_number(double value) {
  if (!std::isfinite(value)) return nullptr;
  return value;
}

nlohmann::ordered_json json_number(float value) {
  if (!std::isfinite(value)) return nullptr;
  // The double nearest the float's 9-digit text prints as that text.
  return std::strtod(format_float9(value).c_str(), nullptr);
}

std::string json_line(const nlohmann::ordered_json& value) {
  return value.dump(-1, ' ', /*ensure_ascii=*/false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

}  // namespace trainer
