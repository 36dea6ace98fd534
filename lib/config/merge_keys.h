#pragma once
// YAML's merge key: `{<<: *base, units: 8}` is the mapping anchored as
// `base` with `units` replaced, and `<<: [*a, *b]` takes keys from both (a's
// first). It comes from YAML 1.1, and PyYAML and most YAML readers
// apply it; yaml-cpp reads `<<` as an ordinary key, which would then be
// refused as unknown, so trainer applies it itself as each file is read.
#include <yaml-cpp/yaml.h>

#include <functional>
#include <string>

#include "config/read_context.h"

namespace trainer {

// Replaces every plain `<<` key under `node` by the keys of the mapping (or
// the list of mappings) it names, where the mapping does not give them
// itself. A `<<` whose value is not a mapping or a list of them is a problem
// at `locate(its key)`; `path` is where `node` sits ("" for a document).
void apply_merge_keys(YAML::Node node, const std::string& path,
                      const std::function<std::string(const YAML::Node&)>& locate, ReadContext& context);

}  // namespace trainer
