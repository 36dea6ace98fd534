#include "config/optimizer_kinds.h"

#include <algorithm>

#include "config/kind_keys.h"

namespace trainer {

std::string OptimizerConfig::foreign_key_note(const std::string& key) const {
  std::vector<std::string> takers;
  for (const auto& entry : EnumTable<OptimizerKind>::entries) {
    OptimizerConfig other;
    other.name = entry.value;
    const auto keys = section_keys(other);
    if (std::find(keys.begin(), keys.end(), key) != keys.end()) takers.push_back(entry.name);
  }
  return trainer::foreign_key_note(to_string(name), key, takers, section_keys(*this));
}

}  // namespace trainer
