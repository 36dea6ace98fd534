#pragma once
// The keys a section takes as it stands (a layer of its type, an optimizer
// of its name), and the note a reader adds when a key belongs to another
// kind: "sgd takes no 'rho' (rmsprop does); sgd takes: name, lr, ...".
#include <algorithm>
#include <string>
#include <vector>

#include "spec/enum_names.h"
#include "spec/field_visitor.h"

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

// The note for `key` on `section`, a section of kinds (a layer of its type,
// an optimizer of its name) whose kind is `kind`: a section made of each
// kind in turn by `set_kind(section, kind)` says which take the key.
template <class S, class Kind, class SetKind>
std::string foreign_key_note_for(const S& section, Kind kind, SetKind set_kind, const std::string& key) {
  std::vector<std::string> takers;
  for (const auto& entry : EnumTable<Kind>::entries) {
    S other;
    set_kind(other, entry.value);
    const std::vector<std::string> keys = section_keys(other);
    if (std::find(keys.begin(), keys.end(), key) != keys.end()) takers.push_back(entry.name);
  }
  return foreign_key_note(to_string(kind), key, takers, section_keys(section));
}

}  // namespace trainer
