#pragma once
// One entry of `model.layers`: the keys of the graph, which every kind takes
// (name, inputs, repeat), and the entry of its kind (spec/layer_kinds.h),
// which owns that kind's keys: `type: conv2d` holds a ConvLayer whose
// `filters` is the `filters` key.
//
// Torch-free: validation and `trainer config` stay so.
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "spec/layer_kinds.h"

namespace trainer {

struct LayerSpec {
  // Keys every kind takes: the graph (see docs/models.md), and whether it trains.
  std::string name;                 // names this layer's output tensor
  std::vector<std::string> inputs;  // tensors read instead of the previous output
  int64_t repeat = 1;               // this many copies in a row, each with its own weights
  bool trainable = true;            // false: frozen (model.freeze), a residual block's body with it
  // The kind's entry with its keys. `type` is missing only from a file with
  // an error, which is reported; dense is what earlier versions assumed.
  LayerKeys keys = DenseLayer{};

  // Where the layer was written ("exp.yaml:12:5"), set by the reader, so that
  // errors found when the model is built can point at it. Not a key.
  std::string source_location;

  LayerKind type() const {
    return std::visit([](const auto& entry) { return std::decay_t<decltype(entry)>::kind; }, keys);
  }
  // Becomes a layer of `kind` with that kind's defaults; the graph keys stay.
  void set_type(LayerKind kind) {
    if (kind != type()) with_layer_kind(kind, [&](auto entry) { keys = std::move(entry); });
  }
  // The entry when the layer is of that kind, else null.
  template <class Kind> const Kind* as() const { return std::get_if<Kind>(&keys); }
  template <class Kind> Kind* as() { return std::get_if<Kind>(&keys); }
  // The activation applied to the layer's output, for the kinds that take one.
  std::optional<Activation> activation() const;

  template <class V> void visit_fields(V& v);
  static constexpr const char* kKindKey = "type";
  // For a key that `type` does not take: which kinds do, and what `type`
  // takes instead; "" when no kind takes it (spec/layer_kinds.cpp).
  std::string foreign_key_note(const std::string& key) const;
  // Whether `trainer config` leaves `key` out: the graph keys and the
  // initialisers while they hold their defaults, so the files of chain models
  // read as before graphs existed (and runs written then resume without a
  // difference).
  bool is_quiet_default(const std::string& key) const;
};

template <class V> void LayerSpec::visit_fields(V& v) {
  // Read first, so that the kind's keys below are the chosen kind's.
  LayerKind kind = type();
  v.required("type", kind, "Layer type.");
  set_type(kind);
  v("name", name, "Names the layer's output, for `inputs` of later layers (and the summary).");
  v("inputs", inputs, "Tensors the layer reads (names, or `input` for the model's input) instead of the "
                      "previous layer's output; merges take two or more.");
  v("repeat", repeat, "Copies of the layer in a row, each with its own weights.", at_least(1));
  v("trainable", trainable, "false: the layer's weights do not train (fine-tuning; see model.freeze).");
  std::visit([&](auto& entry) { entry.fields(v); }, keys);
}

// The checks of `layer`'s kind.
inline void check_layer(const LayerSpec& layer, LayerProblems& problems) {
  std::visit([&](const auto& entry) { entry.check(problems); }, layer.keys);
}

inline void ResidualLayer::check(LayerProblems& p) const {
  if (layers.empty()) p.bad("layers", "expected at least one layer");
}

inline bool ResidualLayer::is_quiet_default(const std::string& key) const {
  return key == "shortcut" && shortcut.empty();
}

}  // namespace trainer
