#pragma once
// The codecs of plain values (yaml_codec.h): booleans, integers, numbers,
// strings, enums by their names, optional values and lists of strings, with
// the primary template and the helpers the others share.
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "spec/enums.h"

namespace trainer {

template <class T, class Enable = void>
struct Codec;

// A value as one line of YAML flow text (`[1, 2]`, `{a: 1}`), `null_text`
// for a null or empty one: for the config's reference, --explain and diffs.
inline std::string flow_text(const YAML::Node& node, const char* null_text) {
  YAML::Emitter emitter;
  emitter << YAML::Flow << node;
  const std::string text = emitter.c_str();
  return text.empty() || text == "~" ? null_text : text;
}

template <class T>
bool decode_scalar(const YAML::Node& node, T& out) {
  if (!node.IsScalar()) return false;
  try {
    out = node.as<T>();
    return true;
  } catch (const YAML::Exception&) {
    return false;
  }
}

template <>
struct Codec<bool> {
  static bool decode(const YAML::Node& n, bool& v) { return decode_scalar(n, v); }
  static YAML::Node encode(bool v) { return YAML::Node(v); }
  static std::string expected() { return "true or false"; }
};

template <>
struct Codec<int64_t> {
  static bool decode(const YAML::Node& n, int64_t& v) { return decode_scalar(n, v); }
  static YAML::Node encode(int64_t v) { return YAML::Node(v); }
  static std::string expected() { return "an integer"; }
};

template <>
struct Codec<double> {
  // .inf and .nan are YAML numbers, but no setting means them.
  static bool decode(const YAML::Node& n, double& v) { return decode_scalar(n, v) && std::isfinite(v); }
  // Shortest text that reads back as the same double: 0.1, not 0.10000000000000001.
  static YAML::Node encode(double v) {
    char text[32];
    for (int digits = 6; digits <= 17; ++digits) {
      std::snprintf(text, sizeof text, "%.*g", digits, v);
      if (std::strtod(text, nullptr) == v) break;
    }
    return YAML::Node(std::string(text));
  }
  static std::string expected() { return "a finite number"; }
};

template <>
struct Codec<std::string> {
  static bool decode(const YAML::Node& n, std::string& v) { return decode_scalar(n, v); }
  static YAML::Node encode(const std::string& v) { return YAML::Node(v); }
  static std::string expected() { return "a string"; }
};

template <class E>
struct Codec<E, std::enable_if_t<std::is_enum_v<E>>> {
  static bool decode(const YAML::Node& n, E& v) {
    std::string text;
    if (!decode_scalar(n, text)) return false;
    auto parsed = enum_from_string<E>(text);
    if (parsed) v = *parsed;
    return parsed.has_value();
  }
  static YAML::Node encode(E v) { return YAML::Node(std::string(to_string(v))); }
  static std::string expected() { return "one of " + enum_spellings<E>(); }
};

template <class T>
struct Codec<std::optional<T>> {
  static bool decode(const YAML::Node& n, std::optional<T>& v) {
    if (n.IsNull()) {
      v.reset();
      return true;
    }
    T value{};
    if (!Codec<T>::decode(n, value)) return false;
    v = value;
    return true;
  }
  static YAML::Node encode(const std::optional<T>& v) { return v ? Codec<T>::encode(*v) : YAML::Node(); }
  static std::string expected() { return Codec<T>::expected() + " or null"; }
};

template <>
struct Codec<std::vector<std::string>> {
  static bool decode(const YAML::Node& n, std::vector<std::string>& v) {
    if (!n.IsSequence()) return false;
    v.clear();
    for (const auto& item : n) {
      std::string text;
      if (!decode_scalar(item, text)) return false;
      v.push_back(text);
    }
    return true;
  }
  static YAML::Node encode(const std::vector<std::string>& v) {
    YAML::Node n(YAML::NodeType::Sequence);
    for (const auto& s : v) n.push_back(s);
    n.SetStyle(YAML::EmitterStyle::Flow);
    return n;
  }
  static std::string expected() { return "a list of strings"; }
};

}  // namespace trainer
