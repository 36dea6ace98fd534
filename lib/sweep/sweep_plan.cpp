#include "sweep/sweep_plan.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>
#include <set>

#include "config/config_reference.h"
#include "util/error.h"

namespace trainer {
namespace {

std::string flow_text(const YAML::Node& node) {
  YAML::Emitter out;
  out << YAML::Flow << node;
  return out.c_str();
}

std::string last_part(const std::string& key) {
  const size_t dot = key.rfind('.');
  return dot == std::string::npos ? key : key.substr(dot + 1);
}

// A value as a directory name: no '/', nothing a shell must quote beyond '='
// and ','; long values keep their start.
std::string path_safe(const std::string& value) {
  std::string out;
  for (char c : value) {
    if (c == '/') out += "%2F";
    else if (c == ' ') continue;
    else out += c;
  }
  return out.size() > 60 ? out.substr(0, 60) : out;
}

// The value a list item stands for: its number when it reads as one (0.1,
// 0.10 and 1e-1 are one learning rate), else its YAML text.
std::string value_key(const std::string& text) {
  char* end = nullptr;
  const double number = std::strtod(text.c_str(), &end);
  if (!text.empty() && end == text.c_str() + text.size() && std::isfinite(number)) {
    char key[40];
    std::snprintf(key, sizeof key, "%.17g", number);
    return key;
  }
  return text;
}

// A value listed twice would train the same point twice, to the same
// result: most likely a slip (0.01 for 0.001).
void check_no_repeats(const std::string& set, const std::vector<std::string>& values) {
  std::map<std::string, std::string> seen;  // key -> the first spelling
  for (const std::string& value : values) {
    const auto [first, fresh] = seen.emplace(value_key(value), value);
    if (fresh) continue;
    const std::string repeat =
        first->second == value ? value + " is listed twice" : first->second + " and " + value + " are one value";
    throw UsageError("--set " + set + ": " + repeat + "; the two points would train the same config to the same result",
                     "list each value once; to repeat a point with other seeds, make the seed an axis: "
                     "--set experiment.seed=[1,2,3]");
  }
}

}  // namespace

bool SweepPlan::has_range() const {
  return std::any_of(axes.begin(), axes.end(), [](const SweepAxis& axis) { return axis.range.has_value(); });
}

namespace {

// A point of the given values, one per axis, named after them.
SweepPoint make_point(const SweepPlan& plan, const std::vector<std::string>& values) {
  SweepPoint point;
  for (size_t a = 0; a < plan.axes.size(); ++a) {
    point.overrides.push_back(plan.axes[a].key + "=" + values[a]);
    point.name += (a ? "," : "") + plan.axes[a].label + "=" + path_safe(values[a]);
  }
  return point;
}

// Values that differ only past the cut or in spaces would share a
// directory: the later ones take their place in the plan as a suffix.
void make_names_distinct(std::vector<SweepPoint>& points) {
  std::set<std::string> taken;
  for (size_t i = 0; i < points.size(); ++i) {
    std::string& name = points[i].name;
    if (!taken.insert(name).second) {
      name += "#" + std::to_string(i + 1);
      taken.insert(name);
    }
  }
}

std::vector<SweepPoint> every_combination(const SweepPlan& plan) {
  std::vector<SweepPoint> points;
  std::vector<size_t> index(plan.axes.size(), 0);
  while (true) {
    std::vector<std::string> values;
    for (size_t a = 0; a < plan.axes.size(); ++a) values.push_back(plan.axes[a].values[index[a]]);
    points.push_back(make_point(plan, values));
    // The last axis turns fastest.
    size_t a = plan.axes.size();
    while (a > 0 && ++index[a - 1] == plan.axes[a - 1].values.size()) index[--a] = 0;
    if (a == 0) break;
  }
  make_names_distinct(points);
  return points;
}

}  // namespace

SweepPlan plan_sweep(const std::vector<std::string>& sets) {
  SweepPlan plan;
  std::vector<std::string> keys;
  for (const std::string& set : sets) {
    const size_t equals = set.find('=');
    if (equals == std::string::npos || equals == 0)
      throw UsageError("--set " + set + ": expected KEY=VALUE, KEY=[VALUE,VALUE,...] or KEY=loguniform(LOW,HIGH)");
    const std::string key = set.substr(0, equals);
    if (std::find(keys.begin(), keys.end(), key) != keys.end())
      throw UsageError("--set " + key + " is given twice", "list every value of an axis in one --set: " + key + "=[a,b]");
    keys.push_back(key);
    if (auto range = parse_sweep_range(set.substr(equals + 1), "--set " + set)) {
      plan.axes.push_back(SweepAxis{key, {}, range, {}});
      continue;
    }
    YAML::Node value;
    try {
      value = YAML::Load(set.substr(equals + 1));
    } catch (const YAML::Exception& e) {
      throw UsageError("--set " + set + ": the value is not valid YAML: " + e.msg);
    }
    // A list is an axis, unless the key takes a list: then only a list of lists is.
    const bool takes_list = config_key_takes_list(key);
    const bool axis = value.IsSequence() && (!takes_list || (value.size() > 0 && value[0].IsSequence()));
    if (!axis) {
      plan.fixed.push_back(set);
      continue;
    }
    if (value.size() == 0) throw UsageError("--set " + set + ": an axis needs at least one value");
    SweepAxis sweep_axis{key, {}, std::nullopt, {}};
    for (const auto& item : value) sweep_axis.values.push_back(flow_text(item));
    check_no_repeats(set, sweep_axis.values);
    plan.axes.push_back(std::move(sweep_axis));
  }
  if (plan.axes.empty())
    throw UsageError("trainer sweep needs at least one axis",
                     "give a list of values, --set optimizer.lr=[0.01,0.001], or a range with --random K, "
                     "--set optimizer.lr=loguniform(1e-4,1e-1)");

  // Short names unless two axes end alike ("lr" of two optimizers' keys).
  std::vector<std::string> labels;
  for (const auto& a : plan.axes) labels.push_back(last_part(a.key));
  bool clash = false;
  for (const auto& label : labels) clash = clash || std::count(labels.begin(), labels.end(), label) > 1;
  for (auto& a : plan.axes) a.label = clash ? a.key : last_part(a.key);

  if (!plan.has_range()) plan.points = every_combination(plan);
  return plan;
}

void sample_points(SweepPlan& plan, int64_t count, uint64_t seed) {
  if (plan.has_range()) {
    if (count <= 0)
      throw UsageError("a range has no grid to train all of", "say how many points to draw from it: --random K");
    std::mt19937_64 generator(seed);
    std::set<std::vector<std::string>> drawn;
    // Only int ranges and lists can repeat a point; a few tries each, then
    // the axes are taken to hold no more.
    for (int64_t tries = 0; static_cast<int64_t>(plan.points.size()) < count && tries < 100 * count; ++tries) {
      std::vector<std::string> values;
      for (const auto& axis : plan.axes)
        values.push_back(axis.range ? draw_from_range(*axis.range, generator)
                                    : axis.values[generator() % axis.values.size()]);
      if (drawn.insert(values).second) plan.points.push_back(make_point(plan, values));
    }
    make_names_distinct(plan.points);
    return;
  }
  if (count <= 0 || count >= static_cast<int64_t>(plan.points.size())) return;
  std::vector<size_t> order(plan.points.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::mt19937_64 generator(seed);
  std::shuffle(order.begin(), order.end(), generator);
  order.resize(static_cast<size_t>(count));
  std::sort(order.begin(), order.end());
  std::vector<SweepPoint> kept;
  for (size_t i : order) kept.push_back(plan.points[i]);
  plan.points = std::move(kept);
}

}  // namespace trainer
