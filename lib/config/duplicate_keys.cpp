#include "config/duplicate_keys.h"

#include <map>
#include <set>
#include <utility>

#include "config/yaml_nodes.h"

namespace trainer {
namespace {

void walk(const YAML::Node& node, const std::string& path,
          const std::function<std::string(const YAML::Node&)>& locate, ReadContext& context,
          std::set<NodeMark>& reported) {
  if (node.IsSequence()) {
    for (size_t i = 0; i < node.size(); ++i)
      walk(node[i], path + "[" + std::to_string(i) + "]", locate, context, reported);
    return;
  }
  if (!node.IsMap()) return;
  std::map<std::string, YAML::Node> first_of;
  for (auto it = node.begin(); it != node.end(); ++it) {
    // A key that is not a string is refused where the section is read.
    if (!it->first.IsScalar()) continue;
    const std::string key = it->first.Scalar();
    const std::string child = path.empty() ? key : path + "." + key;
    const auto [first, inserted] = first_of.emplace(key, it->first);
    if (!inserted) {
      // A mapping reached through several aliases (*name) is one mapping: its
      // duplicate is reported once, at the anchor's line.
      if (!reported.insert(node_mark(it->first)).second) continue;
      const std::string here = locate(it->first);
      const std::string there = locate(first->second);
      context.problem(here, "duplicate key '" + child + "'" + (there == here ? "" : " (first at " + there + ")"));
      continue;
    }
    walk(it->second, child, locate, context, reported);
  }
}

}  // namespace

void report_duplicate_keys(const YAML::Node& node, const std::string& path,
                           const std::function<std::string(const YAML::Node&)>& locate, ReadContext& context) {
  std::set<NodeMark> reported;
  walk(node, path, locate, context, reported);
}

}  // namespace trainer
