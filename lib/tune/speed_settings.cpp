#include "tune/speed_settings.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "util/json.h"
#include "util/text.h"

namespace trainer {
namespace {

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts(1);
  for (char c : text) {
    if (c == separator) parts.emplace_back();
    else parts.back() += c;
  }
  return parts;
}

void add_unique(std::vector<std::string>& values, const std::string& value) {
  if (std::find(values.begin(), values.end(), value) == values.end()) values.push_back(value);
}

std::string speed_text(const std::optional<double>& speed) {
  if (!speed) return "-";
  char text[32];
  std::snprintf(text, sizeof text, "%.0f", *speed);
  return text;
}

// "data.workers: 2" as nested YAML mappings.
YAML::Node nested(const std::vector<std::pair<std::string, std::string>>& settings) {
  YAML::Node root(YAML::NodeType::Map);
  for (const auto& [key, value] : settings) {
    std::vector<std::string> parts = split(key, '.');
    YAML::Node node = root;
    for (size_t i = 0; i + 1 < parts.size(); ++i) {
      if (!node[parts[i]]) node[parts[i]] = YAML::Node(YAML::NodeType::Map);
      node.reset(node[parts[i]]);
    }
    node[parts.back()] = YAML::Load(value);
  }
  return root;
}

}  // namespace

std::vector<SpeedKnob> plan_speed_knobs(const SpeedPlanInput& input) {
  std::vector<SpeedKnob> knobs;
  if (!input.gpu) {
    // Intra-op threads: the experiment's, then powers of two up to the cores.
    SpeedKnob threads{"cpu_threads", {input.threads}, false};
    for (int n = 1; n < input.cores; n *= 2) add_unique(threads.values, std::to_string(n));
    add_unique(threads.values, std::to_string(input.cores));
    knobs.push_back(threads);
  }
  SpeedKnob precision{"precision", {input.precision}, true};
  for (const char* p : {"fp32", "bf16"}) add_unique(precision.values, p);
  if (input.gpu) add_unique(precision.values, "fp16");
  knobs.push_back(precision);
  if (input.gpu) {
    knobs.push_back({"gpu.channels_last", {input.channels_last ? "true" : "false", input.channels_last ? "false" : "true"},
                     false});
    knobs.push_back({"gpu.cudnn_benchmark",
                     {input.cudnn_benchmark ? "true" : "false", input.cudnn_benchmark ? "false" : "true"}, false});
    if (input.has_fused_kernels)
      knobs.push_back({"gpu.fused_kernels",
                       {input.fused_kernels ? "true" : "false", input.fused_kernels ? "false" : "true"}, false});
  }
  SpeedKnob workers{"data.workers", {input.workers}, false};
  for (int n = 1; n <= std::min(4, std::max(2, input.cores)); n *= 2) add_unique(workers.values, std::to_string(n));
  knobs.push_back(workers);
  if (input.batch_size > 0) {
    SpeedKnob batch{"train.batch_size", {std::to_string(input.batch_size)}, true};
    for (int64_t b : {input.batch_size / 2, input.batch_size * 2})
      if (b >= 1 && (input.train_size == 0 || b <= input.train_size)) add_unique(batch.values, std::to_string(b));
    knobs.push_back(batch);
  }
  return knobs;
}

std::string format_speed_table(const SpeedTuneResult& result) {
  std::vector<std::vector<std::string>> rows{{"setting", "value", "samples/s", ""}};
  for (const SpeedTrial& trial : result.trials)
    rows.push_back({trial.key, trial.value, speed_text(trial.samples_per_second),
                    trial.samples_per_second ? (trial.chosen ? "kept" : "") : trial.why});
  char ratio[32];
  std::snprintf(ratio, sizeof ratio, "%.2fx", result.start_speed > 0 ? result.tuned_speed / result.start_speed : 0.0);
  rows.push_back({"as it is", "", speed_text(result.start_speed), "measured again"});
  rows.push_back({"tuned", "", speed_text(result.tuned_speed), ratio});
  return format_text_table(rows);
}

std::string settings_that_change(const std::vector<std::string>& settings) {
  return join(settings, " and ") + (settings.size() == 1 ? " changes" : " change");
}

std::string format_tuned_yaml(const SpeedTuneResult& result, const std::string& extends_path) {
  std::string text = std::string(kTunedFileMark) + result.experiment_file + " on " + result.device +
                     ": the fastest of the settings below, measured\n# " + std::to_string(result.steps) +
                     " training steps each after " + std::to_string(result.warmup) +
                     " of warm-up, one setting at a time (each with the best of those before).\n";
  char ratio[64];
  std::snprintf(ratio, sizeof ratio, "%.2fx", result.start_speed > 0 ? result.tuned_speed / result.start_speed : 0.0);
  text += "# Tuned " + speed_text(result.tuned_speed) + " samples/s against the experiment's " +
          speed_text(result.start_speed) + " (" + ratio + ").\n";
  if (!result.changes_training.empty())
    text += "# " + settings_that_change(result.changes_training) +
            " what the run computes, not only its speed: check the results (and the learning rate).\n";
  text += "#\n";
  for (const std::string& line : split(format_speed_table(result), '\n'))
    if (!line.empty()) text += "#   " + line + "\n";
  YAML::Node root = nested(result.chosen);
  YAML::Emitter out;
  out << root;
  text += "extends: " + extends_path + "\n";
  if (!result.chosen.empty()) text += std::string(out.c_str()) + "\n";
  return text;
}

std::string format_speed_json(const SpeedTuneResult& result) {
  nlohmann::ordered_json json;
  json["experiment"] = result.experiment_file;
  json["device"] = result.device;
  json["steps"] = result.steps;
  json["warmup"] = result.warmup;
  json["start_samples_per_second"] = json_number(result.start_speed);
  json["tuned_samples_per_second"] = json_number(result.tuned_speed);
  json["chosen"] = nlohmann::ordered_json::object();
  for (const auto& [key, value] : result.chosen) json["chosen"][key] = value;
  json["trials"] = nlohmann::ordered_json::array();
  for (const SpeedTrial& trial : result.trials) {
    nlohmann::ordered_json entry;
    entry["setting"] = trial.key;
    entry["value"] = trial.value;
    entry["samples_per_second"] =
        trial.samples_per_second ? json_number(*trial.samples_per_second) : nlohmann::ordered_json(nullptr);
    if (!trial.why.empty()) entry["error"] = trial.why;
    entry["kept"] = trial.chosen;
    json["trials"].push_back(entry);
  }
  return json_line(json);
}

}  // namespace trainer
