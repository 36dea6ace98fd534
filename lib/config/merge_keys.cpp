#include "config/merge_keys.h"

#include <algorithm>
#include <set>
#include <utility>
#include <vector>

#include "config/yaml_nodes.h"

namespace trainer {
namespace {

// Only a plain <<, as YAML 1.1 defines it (or one tagged !!merge): a quoted
// "<<" is a key like any other.
bool is_merge_key(const YAML::Node& key) {
  if (!key.IsScalar() || key.Scalar() != "<<") return false;
  return key.Tag() == "?" || key.Tag() == "tag:yaml.org,2002:merge";
}

class Merger {
 public:
  Merger(const std::function<std::string(const YAML::Node&)>& locate, ReadContext& context)
      : locate_(locate), context_(context) {}

  void walk(YAML::Node node, const std::string& path) {
    if (node.IsSequence()) {
      for (size_t i = 0; i < node.size(); ++i) walk(node[i], path + "[" + std::to_string(i) + "]");
      return;
    }
    if (!node.IsMap()) return;
    // A mapping reached again through an alias (*name) is merged already.
    if (!done_.insert(node_mark(node)).second) return;
    std::vector<std::pair<YAML::Node, YAML::Node>> merges;  // (the << key, its value)
    for (auto it = node.begin(); it != node.end(); ++it) {
      const std::string key = it->first.IsScalar() ? it->first.Scalar() : "?";
      if (is_merge_key(it->first)) merges.emplace_back(it->first, it->second);
      else walk(it->second, path.empty() ? key : path + "." + key);
    }
    for (const auto& [key, value] : merges) merge_into(node, key, value, path);
  }

 private:
  void merge_into(YAML::Node map, const YAML::Node& key, const YAML::Node& value, const std::string& path) {
    std::vector<YAML::Node> sources;
    if (value.IsMap()) sources.push_back(value);
    else if (value.IsSequence())
      for (const YAML::Node& item : value) sources.push_back(item);
    const bool mappings = (value.IsMap() || value.IsSequence()) &&
                          std::all_of(sources.begin(), sources.end(), [](const YAML::Node& n) { return n.IsMap(); });
    if (!mappings) {
      context_.problem(locate_(key), (path.empty() ? "<<" : path + ".<<") +
                                         ": expected a mapping to merge (<<: *name) or a list of them (<<: [*a, *b]), "
                                         "got " + (value.IsSequence() ? "a list holding other values" : "a value"));
      return;
    }
    map.remove(key);
    // The mapping's own keys win, then the first source's, as in PyYAML.
    for (YAML::Node source : sources) {
      walk(source, path);
      for (auto it = source.begin(); it != source.end(); ++it)
        if (!it->first.IsScalar() || !find_key(map, it->first.Scalar())) map[it->first] = it->second;
    }
  }

  const std::function<std::string(const YAML::Node&)>& locate_;
  ReadContext& context_;
  std::set<NodeMark> done_;
};

}  // namespace

void apply_merge_keys(YAML::Node node, const std::string& path,
                      const std::function<std::string(const YAML::Node&)>& locate, ReadContext& context) {
  Merger(locate, context).walk(node, path);
}

}  // namespace trainer
