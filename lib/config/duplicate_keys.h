#pragma once
// YAML forbids a key twice in one mapping, but yaml-cpp keeps both: a lookup
// finds the first, a merge with `extends:` lets the second win, and either
// way one of the user's values is dropped in silence. Every document is
// checked here once, as it is read, so that no later step meets a duplicate.
#include <yaml-cpp/yaml.h>

#include <functional>
#include <string>

#include "config/read_context.h"

namespace trainer {

// Reports each key given again in a mapping anywhere under `node`, at the
// second occurrence, naming the first: "duplicate key 'train.epochs' (first
// at exp.yaml:3:3)". `path` is where `node` sits ("" for a document);
// `locate` gives a key node's location (file:line:col, or the --set).
void report_duplicate_keys(const YAML::Node& node, const std::string& path,
                           const std::function<std::string(const YAML::Node&)>& locate, ReadContext& context);

}  // namespace trainer
