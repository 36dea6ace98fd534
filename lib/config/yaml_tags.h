#pragma once
// YAML tags (`!!int 3`, `!include base.yaml`, `!!python/tuple [28, 28]`)
// in an experiment. yaml-cpp keeps a tag beside the value and every reader
// here looks at the value alone, so `data: !include data.yaml` was read as
// the string 'data.yaml' ("expected a mapping") and `epochs: !foo 3` as 3,
// the tag dropped in silence. Every document is checked here once, as it is
// read: the tags of YAML's core schema must fit their value, as PyYAML's
// safe_load checks them, and any other tag is refused at its line, as
// safe_load refuses it ("could not determine a constructor for the tag").
#include <yaml-cpp/yaml.h>

#include <functional>
#include <string>

#include "config/read_context.h"

namespace trainer {

// Reports each tag under `node` (keys and values) that trainer does not
// read: "data: YAML tag '!include' is not read by trainer (...)", with the
// way out where one is known (`extends:` for an include, `${VAR}` for an
// environment tag, a plain list for a Python tuple). `path` is where `node`
// sits ("" for a document); `locate` gives a node's location (file:line:col,
// or the --set).
void report_yaml_tags(const YAML::Node& node, const std::string& path,
                      const std::function<std::string(const YAML::Node&)>& locate, ReadContext& context);

}  // namespace trainer
