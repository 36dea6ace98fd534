#include <yaml-cpp/yaml.h>

#include <string>
#include <type_traits>
#include <vector>

#include "config/config_writer.h"
#include "config/yaml_codec.h"
#include "spec/field_visitor.h"

namespace trainer {
namespace {

template <class T, class = void>
struct HasQuietDefaults : std::false_type {};
template <class T>
struct HasQuietDefaults<T, std::void_t<decltype(std::declval<const T&>().is_quiet_default(std::string()))>>
    : std::true_type {};

// The visitor that turns a config section into a YAML mapping.
class FieldWriter : public PlainFieldVisitor<FieldWriter> {
 public:
  explicit FieldWriter(YAML::Node& out) : out_(out) {}

  template <class T>
  void field(const char* key, const T& field, const char*) {
    out_[key] = encode(field);
  }

  template <class T>
  static YAML::Node encode(const T& field) {
    if constexpr (IsSection<T>::value) {
      YAML::Node node(YAML::NodeType::Map);
      FieldWriter inner(node);
      const_cast<T&>(field).visit_fields(inner);
      if constexpr (HasQuietDefaults<T>::value) {
        std::vector<std::string> quiet;
        for (const auto& entry : node)
          if (field.is_quiet_default(entry.first.as<std::string>())) quiet.push_back(entry.first.as<std::string>());
        for (const auto& key : quiet) node.remove(key);
      }
      return node;
    } else if constexpr (IsSectionList<T>::value) {
      YAML::Node node(YAML::NodeType::Sequence);
      for (const auto& item : field) {
        YAML::Node entry = encode(item);
        entry.SetStyle(YAML::EmitterStyle::Flow);
        node.push_back(entry);
      }
      return node;
    } else {
      return Codec<T>::encode(field);
    }
  }

 private:
  YAML::Node& out_;
};

}  // namespace

std::string to_yaml(const ExperimentConfig& config) {
  YAML::Emitter emitter;
  emitter << FieldWriter::encode(config);
  return std::string(emitter.c_str()) + "\n";
}

}  // namespace trainer
