#include "spec/layer_kinds.h"

#include "spec/kind_keys.h"

namespace trainer {

std::string LayerSpec::foreign_key_note(const std::string& key) const {
  return foreign_key_note_for(*this, &LayerSpec::type, key);
}

}  // namespace trainer
