#include "config/config_diff.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>

#include "config/config_writer.h"
#include "config/yaml_codec.h"

namespace trainer {
namespace {

// Keys, or prefixes ending in '.', that may change on resume.
const std::vector<std::string>& resumable_keys() {
  static const std::vector<std::string> keys{
      "train.epochs",         "train.checkpoint_every", "train.checkpoint_every_steps", "train.keep_checkpoints",
      "train.requeue_signal", "train.check_finite_every",
      "train.valid_batch_size", "train.profile.",       "train.early_stopping.", "log.",                 "data.workers",           "data.prefetch", "data.on_device", "gpu.",
      "cpu_threads",          "blas_threads",           "memory_limit",           "dist.timeout",
      "dist.connect_timeout"};
  return keys;
}

std::string value_text(const YAML::Node& node) {
  return node.IsDefined() ? flow_text(node, "null") : "(absent)";
}

void walk(const std::string& key, const YAML::Node& before, const YAML::Node& after,
          std::vector<ConfigChange>& changes) {
  if (before.IsDefined() && after.IsDefined() && before.IsMap() && after.IsMap()) {
    std::vector<std::string> keys;
    for (const auto& entry : before) keys.push_back(entry.first.as<std::string>());
    for (const auto& entry : after)
      if (std::find(keys.begin(), keys.end(), entry.first.as<std::string>()) == keys.end())
        keys.push_back(entry.first.as<std::string>());
    for (const std::string& name : keys)
      walk(key.empty() ? name : key + "." + name, before[name], after[name], changes);
    return;
  }
  if (before.IsDefined() && after.IsDefined() && before.IsSequence() && after.IsSequence() &&
      before.size() == after.size()) {
    for (size_t i = 0; i < before.size(); ++i)
      walk(key + "[" + std::to_string(i) + "]", before[i], after[i], changes);
    return;
  }
  const std::string was = value_text(before), now = value_text(after);
  if (was != now) changes.push_back({key, was, now});
}

}  // namespace

std::vector<ConfigChange> diff_configs(const ExperimentConfig& before, const ExperimentConfig& after) {
  std::vector<ConfigChange> changes;
  walk("", YAML::Load(to_yaml(before)), YAML::Load(to_yaml(after)), changes);
  return changes;
}

bool may_change_on_resume(const std::string& key) {
  for (const std::string& allowed : resumable_keys()) {
    if (allowed.back() == '.' ? key.rfind(allowed, 0) == 0 : key == allowed) return true;
  }
  return false;
}

bool may_change_on_resume(const ConfigChange& change) {
  if (may_change_on_resume(change.key)) return true;
  const auto one_gpu = [](const std::string& entry) { return entry.rfind("gpu:", 0) == 0 && entry != "gpu:all"; };
  // Lists of the same length differ entry by entry: "devices[1]".
  if (change.key.rfind("devices[", 0) == 0) return one_gpu(change.before) && one_gpu(change.after);
  if (change.key != "devices") return false;
  // A list of one for another ("[gpu:0]" -> "[gpu:3]").
  const auto single = [](const std::string& list) {
    return list.size() > 2 && list.front() == '[' && list.back() == ']' && list.find(',') == std::string::npos
               ? list.substr(1, list.size() - 2)
               : list;
  };
  return one_gpu(single(change.before)) && one_gpu(single(change.after));
}

std::vector<std::string> keys_that_may_change_on_resume() {
  std::vector<std::string> keys;
  for (const std::string& key : resumable_keys()) keys.push_back(key.back() == '.' ? key + "*" : key);
  return keys;
}

}  // namespace trainer
