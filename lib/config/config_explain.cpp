// `trainer config --explain`: every resolved key, its value, and the file
// line, --set or default it came from.
#include "config/config_loader.h"
#include "config/yaml_codec.h"
#include "spec/field_visitor.h"

namespace trainer {
namespace {

class FieldExplainer : public PlainFieldVisitor<FieldExplainer> {
 public:
  FieldExplainer(std::vector<ExplainedKey>& rows, const ReadContext& context, std::string prefix)
      : rows_(rows), context_(context), prefix_(std::move(prefix)) {}

  template <class T>
  void field(const char* key, const T& field, const char*) {
    const std::string path = prefix_.empty() ? key : prefix_ + "." + key;
    if constexpr (IsSection<T>::value) {
      FieldExplainer inner(rows_, context_, path);
      const_cast<T&>(field).visit_fields(inner);
    } else if constexpr (std::is_same_v<T, std::vector<LayerSpec>>) {
      rows_.push_back({path, std::to_string(field.size()) + " layers", origin(path)});
    } else {
      rows_.push_back({path, flow_text(Codec<T>::encode(field), "null"), origin(path)});
    }
  }

 private:
  std::string origin(const std::string& path) const {
    const std::string where = context_.recorded_location(path);
    return where.empty() ? "default" : where;
  }

  std::vector<ExplainedKey>& rows_;
  const ReadContext& context_;
  std::string prefix_;
};

}  // namespace

std::vector<ExplainedKey> explain_experiment(const std::string& path, const std::vector<std::string>& overrides) {
  ReadContext context(path);
  ExperimentConfig config = parse_experiment_in(read_experiment_text(path), overrides, context);
  std::vector<ExplainedKey> rows;
  FieldExplainer explainer(rows, context, "");
  config.visit_fields(explainer);
  return rows;
}

}  // namespace trainer
