#pragma once
// An experiment file as one YAML tree: the files it `extends:` (each relative
// to the file naming it, chains allowed) merged under it, the file's keys
// overriding the base's (mappings merged key by key, lists and values
// replaced whole), and `${VAR}` / `${VAR:-default}` in values replaced by
// environment variables (`$${` is a literal `${`).
#include <yaml-cpp/yaml.h>

#include <string>

#include "config/read_context.h"

namespace trainer {

// `text` is the content of `source_name`. Throws ConfigError for YAML that
// does not parse, a cycle or a base that cannot be read (with the chain);
// other problems (an unset variable) go to `context`, and `context` learns
// which file each key came from.
YAML::Node compose_experiment(const std::string& text, const std::string& source_name, ReadContext& context);

// Keras's shorthand `optimizer: adam` and `loss: mse`: a section given by its
// name alone becomes the section {name: adam}. Applied to each file before
// it is merged (so a base's `optimizer: adam` and a file's `optimizer: {lr:
// 0.01}` merge) and again after --set.
void expand_section_shorthands(YAML::Node& root);

}  // namespace trainer
