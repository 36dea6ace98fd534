#include "spec/optimizer_config.h"

#include "spec/kind_keys.h"

namespace trainer {

std::string OptimizerConfig::foreign_key_note(const std::string& key) const {
  return foreign_key_note_for(*this, name(), [](OptimizerConfig& other, OptimizerKind kind) { other.set_name(kind); },
                              key);
}

}  // namespace trainer
