#pragma once
// The keys a section takes as it stands (a layer of its type, an optimizer
// of its name), and the note a reader adds when a key belongs to another
// kind: "sgd takes no 'rho' (rmsprop does); sgd takes: name, lr, ...".
#include <string>
#include <vector>

#include "config/field_visitor.h"

namespace trainer {

class KeyLister : public PlainFieldVisitor<KeyLister> {
 public:
  template <class T>
  void field(const char* key, const T&, const char*) {
    keys.push_back(key);
  }
  std::vector<std::string> keys;
};

template <class S>
std::vector<std::string> section_keys(S section) {
  KeyLister lister;
  section.visit_fields(lister);
  return lister.keys;
}

// "" when `takers` is empty (no kind takes `key`: a plain unknown key).
std::string foreign_key_note(const std::string& kind, const std::string& key, const std::vector<std::string>& takers,
                             const std::vector<std::string>& own_keys);

}  // namespace trainer
