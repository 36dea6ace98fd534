#pragma once
// How each config value type is read from and written to YAML. Every codec
// has decode (false when the node does not hold such a value), encode, and
// expected (the text shown in errors and in the config reference).
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <regex>
#include <string>
#include <type_traits>
#include <vector>

#include "spec/enums.h"
#include "spec/field_types.h"

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

template <>
struct Codec<Dims> {
  // Null (or absent) means "the layer's default", kept as an empty list.
  static bool decode(const YAML::Node& n, Dims& v) {
    if (n.IsNull()) {
      v.clear();
      return true;
    }
    int64_t single = 0;
    if (decode_scalar(n, single)) {
      v = {single};
      return single >= 1;
    }
    if (!n.IsSequence() || n.size() == 0) return false;
    v.clear();
    for (const auto& item : n) {
      if (!decode_scalar(item, single) || single < 1) return false;
      v.push_back(single);
    }
    return true;
  }
  static YAML::Node encode(const Dims& v) {
    if (v.empty()) return YAML::Node();
    if (v.size() == 1) return YAML::Node(v[0]);
    YAML::Node n(YAML::NodeType::Sequence);
    for (auto d : v) n.push_back(d);
    n.SetStyle(YAML::EmitterStyle::Flow);
    return n;
  }
  static std::string expected() { return "a positive integer, a list of them, or null (the default)"; }
};

template <>
struct Codec<Amounts> {
  static bool decode(const YAML::Node& n, Amounts& v) {
    int64_t single = 0;
    if (decode_scalar(n, single)) {
      v.values = {single};
      return single >= 0;
    }
    if (!n.IsSequence() || (n.size() != 2 && n.size() != 4)) return false;
    v.values.clear();
    for (const auto& item : n) {
      if (!decode_scalar(item, single) || single < 0) return false;
      v.values.push_back(single);
    }
    return true;
  }
  static YAML::Node encode(const Amounts& v) {
    if (v.values.size() == 1) return YAML::Node(v.values[0]);
    YAML::Node n(YAML::NodeType::Sequence);
    for (auto d : v.values) n.push_back(d);
    n.SetStyle(YAML::EmitterStyle::Flow);
    return n;
  }
  static std::string expected() { return "a number >= 0, [height, width] or [top, bottom, left, right]"; }
};

template <>
struct Codec<TargetShape> {
  static bool decode(const YAML::Node& n, TargetShape& v) {
    if (n.IsNull()) {
      v.sizes.clear();
      return true;
    }
    if (!n.IsSequence() || n.size() == 0) return false;
    v.sizes.clear();
    int inferred = 0;
    for (const auto& item : n) {
      int64_t size = 0;
      if (!decode_scalar(item, size) || (size < 1 && size != -1)) return false;
      inferred += size == -1;
      v.sizes.push_back(size);
    }
    return inferred <= 1;
  }
  static YAML::Node encode(const TargetShape& v) {
    if (v.sizes.empty()) return YAML::Node();
    YAML::Node n(YAML::NodeType::Sequence);
    for (auto d : v.sizes) n.push_back(d);
    n.SetStyle(YAML::EmitterStyle::Flow);
    return n;
  }
  static std::string expected() { return "a list of sizes >= 1, one of which may be -1 (inferred)"; }
};

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
struct Codec<SizeRef> {
  static bool decode(const YAML::Node& n, SizeRef& v) {
    int64_t number = 0;
    if (decode_scalar(n, number)) {
      v = SizeRef::of(number);
      return number >= 1;
    }
    std::string word;
    if (!decode_scalar(n, word) || (word != "classes" && word != "vocabulary")) return false;
    v = SizeRef::from(word);
    return true;
  }
  static YAML::Node encode(const SizeRef& v) {
    return v.is_keyword() ? YAML::Node(v.keyword) : YAML::Node(v.value);
  }
  static std::string expected() { return "a positive integer, 'classes' or 'vocabulary'"; }
};

template <>
struct Codec<PaddingSpec> {
  static bool decode(const YAML::Node& n, PaddingSpec& v) {
    int64_t amount = 0;
    if (decode_scalar(n, amount)) {
      v = {ConvPadding::kExplicit, amount};
      return amount >= 0;
    }
    std::string word;
    if (!decode_scalar(n, word)) return false;
    if (word == "valid" || word == "same") {
      v = {word == "valid" ? ConvPadding::kValid : ConvPadding::kSame, 0};
      return true;
    }
    return false;
  }
  static YAML::Node encode(const PaddingSpec& v) {
    if (v.mode == ConvPadding::kExplicit) return YAML::Node(v.amount);
    return YAML::Node(std::string(v.mode == ConvPadding::kValid ? "valid" : "same"));
  }
  static std::string expected() { return "valid, same, or a number of zeros >= 0"; }
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

// Whether T is a config section (has visit_fields).
template <class T, class = void>
struct IsSection : std::false_type {};
template <class T>
struct IsSection<T, std::void_t<decltype(&T::template visit_fields<int>)>> : std::true_type {};

// Whether T is a list of sections (model.layers).
template <class T>
struct IsSectionList : std::false_type {};
template <class T>
struct IsSectionList<std::vector<T>> : IsSection<T> {};

}  // namespace trainer
