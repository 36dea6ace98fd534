#include "config/config_compose.h"

#include <yaml-cpp/depthguard.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "config/document_limits.h"
#include "config/duplicate_keys.h"
#include "config/merge_keys.h"
#include "config/yaml_nodes.h"
#include "config/yaml_tags.h"
#include "util/error.h"
#include "util/read_file.h"

namespace trainer {
namespace {

namespace fs = std::filesystem;

std::string position(const std::string& file, const YAML::Node& node) {
  const YAML::Mark mark = node.Mark();
  if (mark.is_null()) return file;
  return file + ":" + std::to_string(mark.line + 1) + ":" + std::to_string(mark.column + 1);
}

std::string chain_text(const std::vector<std::string>& chain) {
  std::string out;
  for (const auto& file : chain) out += (out.empty() ? "" : " -> ") + file;
  return out;
}

YAML::Node parse_document(const std::string& text, const std::string& file, ReadContext& context) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::DeepRecursion& e) {
    // yaml-cpp's own message for this is "bad file".
    throw ConfigError({file + ":" + std::to_string(e.mark.line + 1) + ":" + std::to_string(e.mark.column + 1) +
                       ": invalid YAML: values nested too deeply for the YAML reader (an experiment nests a few "
                       "levels)"});
  } catch (const YAML::ParserException& e) {
    throw ConfigError({file + ":" + std::to_string(e.mark.line + 1) + ":" + std::to_string(e.mark.column + 1) +
                       ": invalid YAML: " + e.msg});
  }
  const auto locate = [&](const YAML::Node& node) { return position(file, node); };
  if (const DocumentProblem problem = document_limit_problem(root, locate))
    throw ConfigError({problem.location + ": " + problem.message});
  report_duplicate_keys(root, "", locate, context);
  report_yaml_tags(root, "", locate, context);
  apply_merge_keys(root, "", locate, context);
  if (root.IsNull()) root = YAML::Node(YAML::NodeType::Map);
  if (!root.IsMap()) throw ConfigError({file + ": expected a mapping of sections (experiment:, data:, ...)"});
  return root;
}

// `text` with ${VAR} and ${VAR:-default} replaced; `problem` gets what is wrong.
std::string expand_variables(const std::string& text, std::string& problem) {
  std::string out;
  for (size_t i = 0; i < text.size();) {
    if (text.compare(i, 3, "$${") == 0) {
      out += "${";
      i += 3;
      continue;
    }
    if (text.compare(i, 2, "${") != 0) {
      out += text[i++];
      continue;
    }
    const size_t close = text.find('}', i + 2);
    if (close == std::string::npos) {
      problem = "'${' without a closing '}' (write $${ for a literal ${)";
      return text;
    }
    const std::string inside = text.substr(i + 2, close - i - 2);
    const size_t dash = inside.find(":-");
    const std::string name = inside.substr(0, dash);
    if (name.empty() || name.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") !=
                            std::string::npos ||
        std::isdigit(static_cast<unsigned char>(name[0]))) {
      problem = "'${" + inside + "}' is not a variable name (letters, digits and _)";
      return text;
    }
    const char* value = std::getenv(name.c_str());
    if (value && (*value || dash == std::string::npos)) {
      out += value;
    } else if (dash != std::string::npos) {
      out += inside.substr(dash + 2);  // unset or empty: the default, as the shell's ${VAR:-default}
    } else {
      problem = "${" + name + "} is not set in the environment (give a default: ${" + name + ":-VALUE})";
      return text;
    }
    i = close + 1;
  }
  return out;
}

void expand_tree(YAML::Node node, const std::string& path, const std::string& file, ReadContext& context) {
  if (node.IsScalar()) {
    const std::string& text = node.Scalar();
    if (text.find("${") == std::string::npos) return;
    std::string problem;
    const std::string expanded = expand_variables(text, problem);
    if (!problem.empty()) context.problem(position(file, node), path + ": " + problem);
    else node = expanded;
  } else if (node.IsMap()) {
    for (auto it = node.begin(); it != node.end(); ++it) {
      const std::string key = it->first.IsScalar() ? it->first.Scalar() : "?";
      expand_tree(it->second, path.empty() ? key : path + "." + key, file, context);
    }
  } else if (node.IsSequence()) {
    for (size_t i = 0; i < node.size(); ++i) expand_tree(node[i], path + "[" + std::to_string(i) + "]", file, context);
  }
}

// `top` over `base`: mappings merged key by key, anything else replaced.
// The key nodes are kept (with their line numbers) for the messages.
YAML::Node merge(const YAML::Node& base, const YAML::Node& top, const std::string& path, const std::string& file,
                 ReadContext& context) {
  YAML::Node out(YAML::NodeType::Map);
  for (auto it = base.begin(); it != base.end(); ++it) out[it->first] = it->second;
  for (auto it = top.begin(); it != top.end(); ++it) {
    const std::string key = it->first.IsScalar() ? it->first.Scalar() : "?";
    const std::string child = path.empty() ? key : path + "." + key;
    const std::optional<YAML::Node> existing = find_key(out, key);
    if (!existing) {
      out[it->first] = it->second;
      context.note_source(child, file);
    } else if (out[*existing].IsMap() && it->second.IsMap()) {
      out[*existing] = merge(out[*existing], it->second, child, file, context);
    } else {
      out[*existing] = it->second;
      context.note_source(child, file);
    }
  }
  return out;
}

YAML::Node compose(const std::string& text, const std::string& file, std::vector<std::string>& chain,
                   ReadContext& context) {
  chain.push_back(file);
  context.note_file(file);
  YAML::Node root = parse_document(text, file, context);
  expand_tree(root, "", file, context);
  expand_section_shorthands(root);
  const YAML::Node extends = root["extends"];
  if (!extends) {
    for (auto it = root.begin(); it != root.end(); ++it)
      if (it->first.IsScalar()) context.note_source(it->first.Scalar(), file);
    chain.pop_back();
    return root;
  }
  if (!extends.IsScalar() || extends.Scalar().empty())
    throw ConfigError({position(file, extends) + ": extends: expected the path of one experiment file"});
  fs::path base_path = extends.Scalar();
  if (base_path.is_relative()) base_path = fs::path(file).parent_path() / base_path;
  const std::string base = base_path.lexically_normal().string();
  std::error_code error;
  for (const std::string& earlier : chain)
    if (fs::equivalent(earlier, base, error) || earlier == base) {
      std::vector<std::string> cycle = chain;
      cycle.push_back(base);
      throw ConfigError({position(file, extends) + ": extends: a cycle: " + chain_text(cycle)});
    }
  FileRead base_text = read_regular_file(base, kConfigFileCap, "config file");
  if (!base_text.ok()) {
    std::vector<std::string> missing = chain;
    missing.push_back(base);
    throw ConfigError({position(file, extends) + ": extends: " + base + " " + base_text.problem + " (" +
                       chain_text(missing) + ")"});
  }
  const YAML::Node below = compose(base_text.bytes, base, chain, context);
  root.remove("extends");
  chain.pop_back();
  return merge(below, root, "", file, context);
}

}  // namespace

void expand_section_shorthands(YAML::Node& root) {
  const YAML::Node& read = root;  // reading through a const node adds no key
  for (const char* section : {"optimizer", "loss"}) {
    const YAML::Node value = read[section];
    if (!value || !value.IsScalar() || value.Scalar().empty()) continue;
    YAML::Node expanded(YAML::NodeType::Map);
    expanded["name"] = value;  // the same node: its line and column stay for messages
    root[section] = expanded;
  }
}

YAML::Node compose_experiment(const std::string& text, const std::string& source_name, ReadContext& context) {
  std::vector<std::string> chain;
  return compose(text, source_name, chain, context);
}

}  // namespace trainer
