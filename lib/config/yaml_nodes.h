#pragma once
// What the config's walks of a YAML tree ask of its nodes and yaml-cpp does
// not answer directly.
#include <yaml-cpp/yaml.h>

#include <optional>
#include <string>
#include <utility>

namespace trainer {

// The key node of `map` that reads `key`, when one does, with its line and
// column. (yaml-cpp's map[node] compares nodes by identity, and map[text]
// gives the value, not the key.)
inline std::optional<YAML::Node> find_key(const YAML::Node& map, const std::string& key) {
  for (auto it = map.begin(); it != map.end(); ++it)
    if (it->first.IsScalar() && it->first.Scalar() == key) return it->first;
  return std::nullopt;
}

// Where a node starts (line, column): within one document, a mapping or list
// met again at the same place is the same one, reached through an alias.
using NodeMark = std::pair<int, int>;
inline NodeMark node_mark(const YAML::Node& node) { return {node.Mark().line, node.Mark().column}; }

}  // namespace trainer
