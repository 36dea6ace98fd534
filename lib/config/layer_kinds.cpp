#include "config/layer_kinds.h"

#include <algorithm>

#include "config/kind_keys.h"

namespace trainer {

std::string LayerSpec::foreign_key_note(const std::string& key) const {
  std::vector<std::string> takers;
  for (const auto& entry : EnumTable<LayerKind>::entries) {
    LayerSpec other;
    other.type = entry.value;
    const auto keys = section_keys(other);
    if (std::find(keys.begin(), keys.end(), key) != keys.end()) takers.push_back(entry.name);
  }
  return trainer::foreign_key_note(to_string(type), key, takers, section_keys(*this));
}

}  // namespace trainer
