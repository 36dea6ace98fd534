#include "config/yaml_tags.h"

#include <cstdint>
#include <set>

#include "config/yaml_nodes.h"

namespace trainer {
namespace {

constexpr const char* kCoreTagPrefix = "tag:yaml.org,2002:";

// yaml-cpp's tag of a plain value ("?"), of a quoted one or one tagged "!"
// ("!"), and of an empty one (""): no tag the user wrote.
bool untagged(const std::string& tag) { return tag.empty() || tag == "?" || tag == "!"; }

// The tag as it is written in a file: !!int, !include, !<tag:example.com,2026:x>.
std::string written(const std::string& tag) {
  if (tag.rfind(kCoreTagPrefix, 0) == 0) return "!!" + tag.substr(std::char_traits<char>::length(kCoreTagPrefix));
  if (tag.rfind('!', 0) == 0) return tag;
  return "!<" + tag + ">";
}

template <class T>
bool reads_as(const YAML::Node& node) {
  try {
    node.as<T>();
    return true;
  } catch (const YAML::Exception&) {
    return false;
  }
}

bool null_text(const std::string& text) {
  return text.empty() || text == "~" || text == "null" || text == "Null" || text == "NULL";
}

// For a core-schema tag (name without its prefix): "" when `node` fits it,
// else what it should have been.
std::string core_misfit(const std::string& name, const YAML::Node& node, bool is_key) {
  if (name == "map") return node.IsMap() ? "" : "a mapping";
  if (name == "seq") return node.IsSequence() ? "" : "a list";
  if (name == "merge") return is_key && node.IsScalar() && node.Scalar() == "<<" ? "" : "the merge key <<";
  const bool scalar_tag = name == "str" || name == "int" || name == "float" || name == "bool" || name == "null";
  if (!scalar_tag) return "?";  // not a tag of the core schema
  if (!node.IsScalar()) return "a single value";
  if (name == "str") return "";
  if (name == "int") return reads_as<int64_t>(node) ? "" : "an integer";
  if (name == "float") return reads_as<double>(node) ? "" : "a number";
  if (name == "bool") return reads_as<bool>(node) ? "" : "true or false";
  return null_text(node.Scalar()) ? "" : "null (~)";
}

std::string way_out(const std::string& tag) {
  if (tag == "!include" || tag == "!import")
    return "; to build one experiment from several files, name the base file in extends: (docs/config-files.md)";
  if (tag == "!ENV" || tag == "!env")
    return "; a value takes an environment variable as ${VAR} or ${VAR:-default}, with no tag";
  if (tag == std::string(kCoreTagPrefix) + "python/tuple")
    return "; write the tuple as a list, [28, 28] (PyYAML's yaml.safe_dump writes it so)";
  return "; write the value without it";
}

class Walk {
 public:
  Walk(const std::function<std::string(const YAML::Node&)>& locate, ReadContext& context)
      : locate_(locate), context_(context) {}

  void visit(YAML::Node node, const std::string& path, bool is_key = false) {
    // A value reached again through an alias (*name) is the anchored one,
    // checked (and reported) once, at the anchor's line.
    if (!node.IsNull() && !seen_.insert(node_mark(node)).second) return;
    check(node, path, is_key);
    if (node.IsSequence()) {
      for (size_t i = 0; i < node.size(); ++i) visit(node[i], path + "[" + std::to_string(i) + "]");
    } else if (node.IsMap()) {
      for (auto it = node.begin(); it != node.end(); ++it) {
        const std::string key = it->first.IsScalar() ? it->first.Scalar() : "?";
        const std::string child = path.empty() ? key : path + "." + key;
        visit(it->first, child, true);
        visit(it->second, child);
      }
    }
  }

 private:
  void check(YAML::Node& node, const std::string& path, bool is_key) {
    const std::string tag = node.Tag();
    if (untagged(tag)) return;
    const std::string where = path.empty() ? "" : path + ": ";
    const bool core = tag.rfind(kCoreTagPrefix, 0) == 0;
    const std::string misfit = core ? core_misfit(tag.substr(std::char_traits<char>::length(kCoreTagPrefix)), node,
                                                  is_key)
                                    : "?";
    if (misfit == "?") {
      context_.problem(locate_(node), where + "YAML tag '" + written(tag) +
                                          "' is not read by trainer: an experiment holds mappings, lists and plain "
                                          "values, as PyYAML's safe_load reads them" +
                                          way_out(tag));
      return;
    }
    if (!misfit.empty()) {
      const std::string value = node.IsScalar() ? "'" + node.Scalar() + "'" : node.IsMap() ? "a mapping" : "a list";
      context_.problem(locate_(node), where + "YAML tag '" + written(tag) + "' on " + value + ", which is not " +
                                          misfit);
      return;
    }
    // yaml-cpp keeps `!!null ~` a value with the text "~"; every reader here
    // asks whether a value is null.
    if (tag == std::string(kCoreTagPrefix) + "null") node = YAML::Null;
  }

  const std::function<std::string(const YAML::Node&)>& locate_;
  ReadContext& context_;
  std::set<NodeMark> seen_;
};

}  // namespace

void report_yaml_tags(const YAML::Node& node, const std::string& path,
                      const std::function<std::string(const YAML::Node&)>& locate, ReadContext& context) {
  Walk walk(locate, context);
  walk.visit(node, path);
}

}  // namespace trainer
