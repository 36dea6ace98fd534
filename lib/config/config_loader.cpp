#include "config/config_loader.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "config/config_compose.h"
#include "config/document_limits.h"
#include "config/duplicate_keys.h"
#include "config/field_reader.h"
#include "config/validate.h"
#include "config/yaml_tags.h"
#include "util/error.h"
#include "util/read_file.h"

namespace trainer {
namespace {

bool is_index(const std::string& text) {
  return !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
}

// "model.layers.2.units=8" -> sets that node in `root`, creating mappings on
// the way, and records that the value came from this --set.
void apply_override(YAML::Node& root, const std::string& text, ReadContext& context) {
  const size_t equals = text.find('=');
  if (equals == std::string::npos || equals == 0) {
    context.problem("--set " + text, "expected KEY=VALUE, e.g. --set optimizer.lr=0.01");
    return;
  }
  const std::string key = text.substr(0, equals);
  YAML::Node value;
  try {
    value = YAML::Load(text.substr(equals + 1));
  } catch (const YAML::Exception& e) {
    context.problem("--set " + text, std::string("value is not valid YAML: ") + e.msg);
    return;
  }
  const auto at_the_set = [&](const YAML::Node&) { return "--set " + text; };
  if (const DocumentProblem problem = document_limit_problem(value, at_the_set)) {
    context.problem(problem.location, problem.message);
    return;
  }
  report_duplicate_keys(value, key, at_the_set, context);
  // A value whose tag is refused is not set: its own checks would report it twice.
  const size_t problems_before = context.problems().size();
  report_yaml_tags(value, key, at_the_set, context);
  if (context.problems().size() > problems_before) return;

  std::vector<std::string> parts;
  std::stringstream stream(key);
  for (std::string part; std::getline(stream, part, '.');) parts.push_back(part);

  std::string path;
  std::string created;  // the first mapping on the way that the file did not have
  YAML::Node current = root;
  for (size_t i = 0; i < parts.size(); ++i) {
    const std::string& part = parts[i];
    if (part.empty()) {
      context.problem("--set " + text, "empty key component in '" + key + "'");
      return;
    }
    const bool last = i + 1 == parts.size();
    if (current.IsSequence() && !is_index(part)) {
      // A name (or -1) would silently turn the list into a mapping, blamed later on the file's line.
      context.problem("--set " + text, "'" + (path.empty() ? part : path) + "' is a list of " +
                                           std::to_string(current.size()) + " entries: '" + part +
                                           "' is no index of it (0 to " + std::to_string(current.size()) + " - 1)");
      return;
    }
    if (current.IsSequence()) {
      // Any index past the list's end is refused, however many digits it has.
      const size_t index = part.size() > 9 ? current.size() : std::stoul(part);
      path += "[" + part + "]";
      if (index >= current.size()) {
        context.problem("--set " + text, "'" + key + "': the list has " + std::to_string(current.size()) +
                                             " entries, so index " + part + " does not exist");
        return;
      }
      if (last) current[index] = value;
      else current.reset(current[index]);
      continue;
    }
    path += (path.empty() ? "" : ".") + part;
    if (last) {
      current[part] = value;
    } else {
      if (!current[part].IsMap() && !current[part].IsSequence()) {
        current[part] = YAML::Node(YAML::NodeType::Map);
        if (created.empty()) created = path;
      }
      YAML::Node next = current[part];
      current.reset(next);
    }
  }
  context.note_override(path, text);
  // A mapping this --set made (`--set trian.epochs=1`): what is wrong with
  // it is the --set's, not the file's.
  if (!created.empty()) context.note_override(created, text);
}

// Defaults that depend on other keys; `root` says which keys were given.
void resolve_defaults(ExperimentConfig& config, const YAML::Node& root) {
  // Image targets: an image loss and image metrics, unless the file says.
  const bool loss_given = root["loss"] && root["loss"]["name"];
  if (has_image_targets(config.data)) {
    if (!root["metrics"]) config.metrics = {"psnr", "ssim"};
    if (!loss_given) config.loss.name = LossKind::kL1;
  } else if (has_real_targets(config.data)) {
    // Regression: Keras's usual pair.
    if (!root["metrics"]) config.metrics = {"mae"};
    if (!loss_given) config.loss.name = LossKind::kMse;
  }
  // Written in, so that a run's config.yaml records the values used.
  config.optimizer.lr = resolved_lr(config.optimizer);
  config.optimizer.weight_decay = resolved_weight_decay(config.optimizer);
}

}  // namespace

ExperimentConfig parse_experiment(const std::string& yaml_text, const std::string& source_name,
                                  const std::vector<std::string>& overrides) {
  ReadContext context(source_name);
  return parse_experiment_in(yaml_text, overrides, context);
}

ExperimentConfig parse_experiment_in(const std::string& yaml_text, const std::vector<std::string>& overrides,
                                     ReadContext& context) {
  YAML::Node root = compose_experiment(yaml_text, context.source(), context);
  // An unset variable would be reported again as a value of the wrong type.
  if (!context.problems().empty()) throw ConfigError(context.problems_in_file_order());

  for (const auto& text : overrides) apply_override(root, text, context);
  expand_section_shorthands(root);

  ExperimentConfig config;
  FieldReader reader(root, "", context);
  config.visit_fields(reader);
  reader.report_unknown_keys();
  if (context.problems().empty()) {
    resolve_defaults(config, root);
    validate_experiment(config, context);
  }
  if (!context.problems().empty()) throw ConfigError(context.problems_in_file_order());
  return config;
}

namespace {

// The way out when `path`, given as the experiment, could not be read.
std::string experiment_hint(const std::string& path, const FileRead& read) {
  if (read.missing) return "check the path";
  // A run directory: the experiment it trained is its config.yaml.
  const std::string recorded = (std::filesystem::path(path) / "config.yaml").string();
  if (std::filesystem::is_directory(path) && regular_file_problem(recorded).empty())
    return "a run directory holds the experiment it trained as config.yaml: give " + recorded;
  return "give the .yaml file itself";
}

}  // namespace

std::string read_experiment_text(const std::string& path) {
  FileRead read = read_regular_file(path, kConfigFileCap, "config file");
  if (!read.ok()) throw UsageError("the experiment file " + path + " " + read.problem, experiment_hint(path, read));
  return std::move(read.bytes);
}

ExperimentConfig load_experiment(const std::string& path, const std::vector<std::string>& overrides) {
  return parse_experiment(read_experiment_text(path), path, overrides);
}

std::vector<std::string> experiment_files(const std::string& path) {
  ReadContext context(path);
  compose_experiment(read_experiment_text(path), path, context);
  return context.files();
}

ExperimentConfig load_recorded_experiment(const std::string& path, const std::vector<std::string>& overrides) {
  ReadContext context(path);
  context.ignore_foreign_keys();
  return parse_experiment_in(read_experiment_text(path), overrides, context);
}

}  // namespace trainer
