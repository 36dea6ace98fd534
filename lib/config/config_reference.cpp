#include <algorithm>
#include <sstream>

#include "config/config_reference.h"
#include "config/yaml_codec.h"
#include "spec/experiment_config.h"
#include "spec/field_visitor.h"
#include "spec/kind_keys.h"

namespace trainer {
namespace {

// name, inputs, repeat, trainable: listed once, before the types (LayerSpec::visit_fields).
constexpr long kGraphKeys = 4;

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

// The rows of `section` as it stands (an optimizer of its name).
template <class S>
std::vector<Row> rows_of(S section, const std::string& prefix) {
  std::vector<Row> rows;
  FieldDocumenter documenter(rows, prefix);
  section.visit_fields(documenter);
  return rows;
}

// The keys every optimizer takes: sgd's, which takes no others.
std::vector<std::string> common_optimizer_keys() {
  OptimizerConfig sgd;
  sgd.set_name(OptimizerKind::kSgd);
  return section_keys(sgd);
}

// `key` is under the optimizer: "beta1", "schedule.gamma".
bool is_common_optimizer_key(const std::string& key) {
  static const std::vector<std::string> common = common_optimizer_keys();
  return std::find(common.begin(), common.end(), key.substr(0, key.find('.'))) != common.end();
}

// Every key's row: the default config's, with the optimizer's own keys
// replaced by those of every optimizer, each once, after the common ones.
std::vector<Row> all_rows() {
  std::vector<Row> rows;
  // A named default, not a temporary: GCC 12 warns (wrongly) of an
  // uninitialised vector inside a temporary ExperimentConfig here.
  const ExperimentConfig defaults;
  for (const Row& row : rows_of(defaults, "")) {
    const bool optimizer_own = row.key.rfind("optimizer.", 0) == 0 &&
                               !is_common_optimizer_key(row.key.substr(std::string("optimizer.").size()));
    if (!optimizer_own) rows.push_back(row);
  }
  return rows;
}

std::vector<Row> with_every_optimizer_key(std::vector<Row> rows) {
  for (const auto& entry : EnumTable<OptimizerKind>::entries) {
    OptimizerConfig optimizer;
    optimizer.set_name(entry.value);
    for (const Row& row : rows_of(optimizer, "optimizer"))
      if (std::none_of(rows.begin(), rows.end(), [&](const Row& r) { return r.key == row.key; })) rows.push_back(row);
  }
  return rows;
}

}  // namespace

std::vector<std::string> config_keys() {
  std::vector<std::string> keys;
  for (const Row& row : with_every_optimizer_key(all_rows())) keys.push_back(row.key);
  return keys;
}

bool config_key_takes_list(const std::string& key) {
  for (const Row& row : with_every_optimizer_key(all_rows()))
    if (row.key == key) return row.type.find("list") != std::string::npos || row.type.find('[') != std::string::npos;
  return false;
}

std::string config_reference_markdown() {
  std::ostringstream out;
  write_table(out, all_rows());

  out << "\n### Optimizers\n\nEach `optimizer.name` takes the keys above, with its own defaults for `lr` and "
         "`weight_decay`, and the keys listed under it:\n";
  for (const auto& entry : EnumTable<OptimizerKind>::entries) {
    OptimizerConfig optimizer;
    optimizer.set_name(entry.value);
    std::vector<Row> own;
    for (const Row& row : rows_of(optimizer, ""))
      if (!is_common_optimizer_key(row.key)) own.push_back(row);
    out << "\n`name: " << entry.name << "`: lr " << flow_text(Codec<double>::encode(resolved_lr(optimizer)), "")
        << ", weight_decay " << flow_text(Codec<double>::encode(resolved_weight_decay(optimizer)), "");
    if (own.empty()) {
      out << "; no other keys.\n";
      continue;
    }
    out << ".\n\n";
    write_table(out, own);
  }

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
    layer.set_type(entry.value);
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
