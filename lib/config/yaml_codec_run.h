#pragma once
// The codecs of a run's settings (yaml_codec.h): the batch size, spans,
// memory limits, device lists, class weights and the ordered rule mappings
// (model.init_rename, optimizer.lr_scale).
#include <cmath>
#include <regex>
#include <string>

#include "config/yaml_codec_scalars.h"
#include "spec/field_types.h"

namespace trainer {

template <>
struct Codec<BatchSize> {
  static bool decode(const YAML::Node& n, BatchSize& v) {
    std::string word;
    if (decode_scalar(n, v.value)) {
      v.automatic = false;
      return true;
    }
    if (!decode_scalar(n, word) || word != "auto") return false;
    v.automatic = true;
    return true;
  }
  static YAML::Node encode(const BatchSize& v) { return v.automatic ? YAML::Node("auto") : YAML::Node(v.value); }
  static std::string expected() { return "an integer >= 1 or auto"; }
};

template <>
struct Codec<Span> {
  static bool decode(const YAML::Node& n, Span& v) {
    double low = 0, high = 0;
    if (n.IsScalar()) {
      if (!Codec<double>::decode(n, low)) return false;
      v = {low, low};
      return true;
    }
    if (!n.IsSequence() || n.size() != 2 || !Codec<double>::decode(n[0], low) || !Codec<double>::decode(n[1], high) ||
        low > high)
      return false;
    v = {low, high};
    return true;
  }
  static YAML::Node encode(const Span& v) {
    if (v.low == v.high) return Codec<double>::encode(v.low);
    YAML::Node n(YAML::NodeType::Sequence);
    n.push_back(Codec<double>::encode(v.low));
    n.push_back(Codec<double>::encode(v.high));
    n.SetStyle(YAML::EmitterStyle::Flow);
    return n;
  }
  static std::string expected() { return "a number, or [low, high] with low <= high"; }
};

template <>
struct Codec<MemoryLimit> {
  static bool decode(const YAML::Node& n, MemoryLimit& v) {
    std::string text;
    if (!decode_scalar(n, text)) return false;
    static const std::regex pattern(R"(^\s*(\d+)\s*(MiB|GiB|MB|GB|M|G)?\s*$)");
    std::smatch match;
    // At most 2^40 MiB (an exbibyte), so that the budget in bytes fits 64 bits.
    if (!std::regex_match(text, match, pattern) || match[1].length() > 16) return false;
    const std::string unit = match[2].str();
    const double amount = std::stod(match[1].str());
    double mib = amount;
    if (unit == "GiB" || unit == "G") mib = amount * 1024;
    else if (unit == "MB") mib = amount * 1e6 / (1024 * 1024);
    else if (unit == "GB") mib = amount * 1e9 / (1024 * 1024);
    if (mib > static_cast<double>(kMaxMemoryMib)) return false;
    v.mib = static_cast<int64_t>(mib);
    return true;
  }
  static YAML::Node encode(const MemoryLimit& v) {
    return v.mib == 0 ? YAML::Node(int64_t{0}) : YAML::Node(std::to_string(v.mib) + "MiB");
  }
  static std::string expected() {
    return "MiB as a number (4096) or with a unit (512MiB, 4GiB), at most 2^40 MiB";
  }
};

template <>
struct Codec<DeviceList> {
  // "gpu:0,1" is shorthand for [gpu:0, gpu:1]; checking each entry's form is
  // validation's job, so that its message can say what is wrong.
  static bool decode(const YAML::Node& n, DeviceList& v) {
    v.entries.clear();
    if (n.IsSequence()) {
      for (const auto& item : n) {
        std::string text;
        if (!decode_scalar(item, text)) return false;
        v.entries.push_back(text);
      }
      return !v.entries.empty();
    }
    std::string text;
    if (!decode_scalar(n, text) || text.empty()) return false;
    const bool gpu = text.rfind("gpu:", 0) == 0;
    std::string rest = gpu ? text.substr(4) : text;
    size_t start = 0;
    while (true) {
      const size_t comma = rest.find(',', start);
      const std::string part = rest.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      v.entries.push_back(gpu ? "gpu:" + part : part);
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    return true;
  }
  static YAML::Node encode(const DeviceList& v) {
    if (v.entries.size() == 1) return YAML::Node(v.entries[0]);
    return Codec<std::vector<std::string>>::encode(v.entries);
  }
  static std::string expected() { return "cpu, gpu:N, gpu:N,M,..., gpu:all, or a list of devices"; }
};

template <>
struct Codec<ClassWeights> {
  static bool decode(const YAML::Node& n, ClassWeights& v) {
    v = {};
    if (n.IsNull()) return true;
    std::string word;
    if (decode_scalar(n, word)) {
      v.balanced = word == "balanced";
      return v.balanced;
    }
    if (!n.IsSequence() || n.size() == 0) return false;
    for (const auto& item : n) {
      double w = 0;
      if (!decode_scalar(item, w) || !std::isfinite(w) || w < 0) return false;
      v.values.push_back(w);
    }
    return true;
  }
  static YAML::Node encode(const ClassWeights& v) {
    if (v.balanced) return YAML::Node(std::string("balanced"));
    if (v.values.empty()) return YAML::Node();
    YAML::Node n(YAML::NodeType::Sequence);
    for (double w : v.values) n.push_back(Codec<double>::encode(w));
    n.SetStyle(YAML::EmitterStyle::Flow);
    return n;
  }
  static std::string expected() { return "balanced, a list of one weight (>= 0) a class, or null"; }
};

// The ordered mappings of rules (NameMap, LayerScales): null clears them;
// each pair is kept in the order written when `valid(key, value)` accepts it.
template <class Rules, class Value, class Valid>
bool decode_rules(const YAML::Node& n, Rules& v, Valid valid) {
  v.rules.clear();
  if (n.IsNull()) return true;
  if (!n.IsMap()) return false;
  for (auto it = n.begin(); it != n.end(); ++it) {
    std::string key;
    Value value{};
    if (!decode_scalar(it->first, key) || !decode_scalar(it->second, value) || !valid(key, value)) return false;
    v.rules.emplace_back(key, value);
  }
  return true;
}

template <class Rules>
YAML::Node encode_rules(const Rules& v) {
  YAML::Node n(YAML::NodeType::Map);
  for (const auto& [key, value] : v.rules) n[key] = value;
  n.SetStyle(YAML::EmitterStyle::Flow);
  return n;
}

template <>
struct Codec<NameMap> {
  // Every pattern must be a valid regular expression.
  static bool decode(const YAML::Node& n, NameMap& v) {
    return decode_rules<NameMap, std::string>(n, v, [](const std::string& from, const std::string&) {
      try {
        std::regex check(from);
        return true;
      } catch (const std::regex_error&) {
        return false;
      }
    });
  }
  static YAML::Node encode(const NameMap& v) { return encode_rules(v); }
  static std::string expected() { return "a mapping of regular expressions to their replacements"; }
};

template <>
struct Codec<LayerScales> {
  static bool decode(const YAML::Node& n, LayerScales& v) {
    return decode_rules<LayerScales, double>(n, v, [](const std::string& pattern, double factor) {
      return !pattern.empty() && std::isfinite(factor) && factor >= 0;
    });
  }
  static YAML::Node encode(const LayerScales& v) { return encode_rules(v); }
  static std::string expected() { return "a mapping of layer name patterns to factors >= 0"; }
};

}  // namespace trainer
