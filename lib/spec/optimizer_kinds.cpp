#include "spec/optimizer_kinds.h"

#include "spec/kind_keys.h"

namespace trainer {

std::string OptimizerConfig::foreign_key_note(const std::string& key) const {
  return foreign_key_note_for(*this, &OptimizerConfig::name, key);
}

}  // namespace trainer
