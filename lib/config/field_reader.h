#pragma once
// The visitor that fills a config section from a YAML mapping, recording a
// problem (with location) for every missing, mistyped, out-of-range or unknown key.
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

#include "config/read_context.h"
#include "config/spelling.h"
#include "config/yaml_nodes.h"
#include "config/yaml_codec.h"
#include "spec/checks.h"
#include "util/text.h"

namespace trainer {

template <class T>
struct NoDeduce {
  using type = T;
};

// Sections that keep where they were written (layers, for errors found later).
// Sections of kinds (layers, optimizers) that can say whose key a stranger is.
template <class S, class = void>
struct HasForeignKeyNote : std::false_type {};
template <class S>
struct HasForeignKeyNote<S, std::void_t<decltype(std::declval<const S&>().foreign_key_note(std::string()))>>
    : std::true_type {};

// Sections of kinds name the key that chooses the kind (`type`, `name`): when
// its value is not a kind, the section's other keys are not judged against
// a kind the user did not ask for.
template <class S, class = void>
struct HasKindKey : std::false_type {};
template <class S>
struct HasKindKey<S, std::void_t<decltype(S::kKindKey)>> : std::true_type {};

template <class S, class = void>
struct HasSourceLocation : std::false_type {};
template <class S>
struct HasSourceLocation<S, std::void_t<decltype(std::declval<S&>().source_location)>> : std::true_type {};

class FieldReader {
 public:
  FieldReader(const YAML::Node& map, std::string prefix, ReadContext& context)
      : map_(map), prefix_(std::move(prefix)), context_(context) {}

  template <class T>
  void operator()(const char* key, T& field, const char*, const Check<typename NoDeduce<T>::type>& check = {}) {
    read(key, field, check, /*required=*/false);
  }
  template <class T>
  void required(const char* key, T& field, const char*) {
    read(key, field, Check<T>{}, /*required=*/true);
  }

  // Reports keys of the mapping that no field declared. `note` says, for a
  // key of another kind, whose it is and what this kind takes.
  void report_unknown_keys(const std::function<std::string(const std::string&)>& note = {}) const {
    // Duplicate keys were refused as the document was read (duplicate_keys.h).
    for (auto it = map_.begin(); it != map_.end(); ++it) {
      std::string key;
      if (!decode_scalar(it->first, key)) {
        context_.problem(context_.where(prefix_, it->first), "keys must be strings");
        continue;
      }
      if (std::find(known_.begin(), known_.end(), key) != known_.end()) continue;
      const std::string path = join_path(key);
      std::string message = "unknown key '" + path + "'";
      if (const std::string foreign = note ? note(key) : std::string(); !foreign.empty()) {
        if (!context_.ignores_foreign_keys()) context_.problem(context_.where(path, it->first), message + ": " + foreign);
        continue;
      }
      const std::string nearest = suggest_key(key, known_);
      if (!nearest.empty()) message += " (did you mean '" + join_path(nearest) + "'?)";
      else message += "; valid keys here: " + join(known_, ", ");
      context_.problem(context_.where(path, it->first), message);
    }
  }

 private:
  std::string join_path(const std::string& key) const { return prefix_.empty() ? key : prefix_ + "." + key; }

  bool failed(const std::string& key) const { return std::find(failed_.begin(), failed_.end(), key) != failed_.end(); }

  template <class T>
  void read(const char* key, T& field, const Check<T>& check, bool required) {
    known_.push_back(key);
    const std::string path = join_path(key);
    const YAML::Node child = map_[key];
    if (!child) {
      if (required) {
        context_.problem(context_.where(prefix_, map_), "missing required key '" + path + "'");
        failed_.push_back(key);
      }
      return;
    }
    // yaml-cpp places an empty value (`train:` and nothing) where the next
    // line starts, past the end of a file's last line: the key is where the
    // user wrote it.
    context_.remember(path, child.IsNull() ? find_key(map_, key).value_or(map_) : child);
    if (!read_value(child, path, field)) {
      failed_.push_back(key);
      return;
    }
    if (check) {
      const std::string expected = check(field);
      if (!expected.empty()) complain(child, path, expected);
    }
  }

  void complain(const YAML::Node& node, const std::string& path, const std::string& expected,
                const std::string& suggestion = {}) const {
    std::string got;
    if (node.IsScalar()) got = "'" + excerpt(node.Scalar()) + "'";  // a 1 MB value, a newline: quoted in part, escaped
    else if (node.IsSequence()) got = "a list";
    else if (node.IsMap()) got = "a mapping";
    else got = "nothing";
    const std::string at = node.IsNull() ? context_.location_of(path) : context_.where(path, node);
    context_.problem(at, path + ": expected " + expected + ", got " + got +
                                                     (suggestion.empty() ? "" : " (did you mean '" + suggestion + "'?)"));
  }

  template <class T>
  bool read_value(const YAML::Node& node, const std::string& path, T& field) {
    if constexpr (IsSection<T>::value) {
      return read_section(node, path, field);
    } else if constexpr (IsSectionList<T>::value) {
      if (!node.IsSequence()) {
        complain(node, path, "a list");
        return false;
      }
      field.clear();
      for (size_t i = 0; i < node.size(); ++i) {
        typename T::value_type item{};
        read_section(node[i], path + "[" + std::to_string(i) + "]", item);
        field.push_back(item);
      }
      return true;
    } else {
      if (Codec<T>::decode(node, field)) return true;
      std::string suggestion;
      if constexpr (std::is_enum_v<T>)
        if (node.IsScalar()) suggestion = suggest_spelling(node.Scalar(), enum_names<T>());
      complain(node, path, Codec<T>::expected(), suggestion);
      return false;
    }
  }

  template <class S>
  bool read_section(const YAML::Node& node, const std::string& path, S& section) {
    if (!node.IsMap()) {
      complain(node, path, "a mapping of keys");
      return false;
    }
    if constexpr (HasSourceLocation<S>::value) section.source_location = context_.where(path, node);
    FieldReader inner(node, path, context_);
    section.visit_fields(inner);
    if constexpr (HasKindKey<S>::value)
      if (inner.failed(S::kKindKey)) return true;  // its problem is said; the keys would be judged by a kind not asked for
    if constexpr (HasForeignKeyNote<S>::value)
      inner.report_unknown_keys([&section](const std::string& key) { return section.foreign_key_note(key); });
    else
      inner.report_unknown_keys();
    return true;
  }

  const YAML::Node map_;
  std::string prefix_;
  ReadContext& context_;
  std::vector<std::string> known_;
  std::vector<std::string> failed_;  // keys present whose value was refused, or required and missing
};

}  // namespace trainer
