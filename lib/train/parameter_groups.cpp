#include "train/parameter_groups.h"

#include <fnmatch.h>

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "util/error.h"
#include "util/text.h"

namespace trainer {

std::vector<ParameterGroup> lr_scale_groups(const Model& model, const LayerScales& scales) {
  if (scales.rules.empty()) return {{model.trainable_parameters(), 1.0}};
  std::vector<ParameterGroup> groups;
  std::vector<bool> used(scales.rules.size(), false);
  for (const auto& item : model.net->named_parameters()) {
    if (!item.value().requires_grad()) continue;
    const std::string tensor = model.layer_name_of(item.key());
    const std::string layer = tensor.substr(0, tensor.find('.'));
    double factor = 1.0;
    for (size_t r = 0; r < scales.rules.size(); ++r)
      if (fnmatch(scales.rules[r].first.c_str(), layer.c_str(), 0) == 0) {
        used[r] = true;
        factor = scales.rules[r].second;
        break;
      }
    auto group = std::find_if(groups.begin(), groups.end(), [&](const ParameterGroup& g) { return g.lr_scale == factor; });
    if (group == groups.end()) {
      groups.push_back({{}, factor});
      group = groups.end() - 1;
    }
    group->params.push_back(item.value());
  }
  std::vector<std::string> problems;
  for (size_t r = 0; r < scales.rules.size(); ++r) {
    if (used[r]) continue;
    std::vector<std::string> layers;
    for (const auto& row : model.summary)
      if (row.trainable > 0) layers.push_back(row.name);
    problems.push_back("optimizer.lr_scale: '" + scales.rules[r].first +
                       "' names no layer with trainable weights (or an earlier pattern took them); those layers: " +
                       join(layers, ", "));
  }
  if (!problems.empty()) throw ConfigError(problems);
  return groups;
}

std::string describe_groups(const std::vector<ParameterGroup>& groups) {
  std::vector<std::string> described;
  for (const ParameterGroup& group : groups) {
    int64_t count = 0;
    for (const auto& p : group.params) count += p.numel();
    described.push_back(fmt::format("x{:g} for {} parameters", group.lr_scale, count));
  }
  return join(described, ", ");
}

std::vector<double> scales_of(const std::vector<ParameterGroup>& groups) {
  std::vector<double> scales;
  for (const ParameterGroup& group : groups) scales.push_back(group.lr_scale);
  return scales;
}

}  // namespace trainer
