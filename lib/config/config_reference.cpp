#include <sstream>

#include "config/config_reference.h"
#include "config/experiment_config.h"
#include "config/field_visitor.h"
#include "config/yaml_codec.h"

namespace trainer {
namespace {

// name, inputs, repeat: listed once, before the types (LayerSpec::visit_fields).
constexpr long kGraphKeys = 3;

struct Row {
  std::string key, type, default_value, doc;
};

// The visitor that lists every field with its type, default and doc.
class FieldDocumenter : public PlainFieldVisitor<FieldDocumenter> {
 public:
  FieldDocumenter(std::vector<Row>& rows, std::string prefix) : rows_(rows), prefix_(std::move(prefix)) {}

  template <class T>
  void field(const char* key, const T& field, const char* doc) {
    const std::string path = prefix_.empty() ? key : prefix_ + "." + key;
    if constexpr (IsSection<T>::value) {
      FieldDocumenter inner(rows_, path);
      const_cast<T&>(field).visit_fields(inner);
    } else if constexpr (std::is_same_v<T, std::vector<LayerSpec>>) {
      rows_.push_back({path, "list of layers", "[]", doc});
    } else {
      rows_.push_back({path, Codec<T>::expected(), flow_text(Codec<T>::encode(field), "none"), doc});
    }
  }

 private:
  std::vector<Row>& rows_;
  std::string prefix_;
};

void write_table(std::ostringstream& out, const std::vector<Row>& rows) {
  out << "| key | value | default | meaning |\n| --- | --- | --- | --- |\n";
  for (const auto& row : rows)
    out << "| `" << row.key << "` | " << row.type << " | `" << row.default_value << "` | " << row.doc << " |\n";
}

}  // namespace

std::vector<std::string> config_keys() {
  std::vector<Row> rows;
  ExperimentConfig defaults;
  FieldDocumenter documenter(rows, "");
  defaults.visit_fields(documenter);
  std::vector<std::string> keys;
  for (const Row& row : rows) keys.push_back(row.key);
  return keys;
}

bool config_key_takes_list(const std::string& key) {
  std::vector<Row> rows;
  ExperimentConfig defaults;
  FieldDocumenter documenter(rows, "");
  defaults.visit_fields(documenter);
  for (const Row& row : rows)
    if (row.key == key) return row.type.find("list") != std::string::npos || row.type.find('[') != std::string::npos;
  return false;
}

std::string config_reference_markdown() {
  std::ostringstream out;
  std::vector<Row> rows;
  ExperimentConfig defaults;
  FieldDocumenter documenter(rows, "");
  defaults.visit_fields(documenter);
  write_table(out, rows);

  out << "\n### Layers\n\nEach entry of `model.layers` has a `type`, the keys of that type, and these keys "
         "of the graph (see docs/models.md):\n\n";
  {
    LayerSpec layer;
    std::vector<Row> common;
    FieldDocumenter common_documenter(common, "");
    layer.visit_fields(common_documenter);
    common.erase(common.begin());  // `type`
    common.resize(kGraphKeys);
    write_table(out, common);
  }
  out << "\nThe types:\n";
  for (const auto& entry : EnumTable<LayerKind>::entries) {
    LayerSpec layer;
    layer.type = entry.value;
    std::vector<Row> layer_rows;
    FieldDocumenter layer_documenter(layer_rows, "");
    layer.visit_fields(layer_documenter);
    layer_rows.erase(layer_rows.begin(), layer_rows.begin() + 1 + kGraphKeys);  // `type` and the graph's
    out << "\n`type: " << entry.name << "`";
    if (layer_rows.empty()) {
      out << " takes no other keys.\n";
      continue;
    }
    out << "\n\n";
    write_table(out, layer_rows);
  }
  return out.str();
}

}  // namespace trainer
