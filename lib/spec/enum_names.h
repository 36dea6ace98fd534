#pragma once
// Text <-> enum for every mode in the config, so a mode is typed once: one table per
// enum, and one function that lists the valid spellings in its error.
#include <optional>
#include <string>
#include <vector>

namespace trainer {

template <class E>
struct EnumName {
  E value;
  const char* name;
};

// Specialised next to each enum with a static `entries` array.
template <class E>
struct EnumTable;

template <class E>
const char* to_string(E value) {
  for (const auto& entry : EnumTable<E>::entries)
    if (entry.value == value) return entry.name;
  return "?";
}

template <class E>
std::optional<E> enum_from_string(const std::string& text) {
  for (const auto& entry : EnumTable<E>::entries)
    if (text == entry.name) return entry.value;
  return std::nullopt;
}

// Every spelling, in the table's order.
template <class E>
std::vector<std::string> enum_names() {
  std::vector<std::string> names;
  for (const auto& entry : EnumTable<E>::entries) names.push_back(entry.name);
  return names;
}

// "a, b or c", for messages.
template <class E>
std::string enum_spellings() {
  std::string out;
  const size_t count = std::size(EnumTable<E>::entries);
  for (size_t i = 0; i < count; ++i) {
    if (i) out += (i + 1 == count) ? " or " : ", ";
    out += EnumTable<E>::entries[i].name;
  }
  return out;
}

}  // namespace trainer
