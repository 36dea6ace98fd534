#pragma once
// The codecs of a layer's shapes and sizes (yaml_codec.h): dims, amounts,
// target shapes, sizes that may name a data set's figure, padding.
#include <string>

#include "config/yaml_codec_scalars.h"
#include "spec/field_types.h"

namespace trainer {

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

}  // namespace trainer
