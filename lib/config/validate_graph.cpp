#include "config/validate_graph.h"

#include <map>
#include <string>

#include "spec/layer_spec.h"
#include "util/text.h"

namespace trainer {
namespace {

// Reports a layer's problems at the location of its key.
class LayerContext : public LayerProblems {
 public:
  LayerContext(std::string path, ReadContext& context) : path_(std::move(path)), context_(context) {}
  void bad(const std::string& key, const std::string& what) override {
    context_.problem(context_.location_of(path_ + "." + key), path_ + "." + key + ": " + what);
  }
  void missing(const std::string& key) override {
    context_.problem(context_.location_of(path_ + "." + key), path_ + ": missing required key '" + key + "'");
  }

 private:
  std::string path_;
  ReadContext& context_;
};

bool is_merge(LayerKind kind) {
  bool merge = false;
  with_layer_kind(kind, [&](auto k) { merge = decltype(k)::input == LayerInput::kMerge; });
  return merge;
}

class GraphWalker {
 public:
  explicit GraphWalker(ReadContext& context) : context_(context) {}

  // Every name and where it is, duplicates reported, before any use is checked.
  void collect(const std::vector<LayerSpec>& layers, const std::string& prefix) {
    for (size_t i = 0; i < layers.size(); ++i) {
      const LayerSpec& layer = layers[i];
      const std::string path = prefix + "[" + std::to_string(i) + "]";
      if (!layer.name.empty()) {
        if (layer.name == kModelInputName) {
          context_.problem(context_.location_of(path + ".name"),
                           path + ".name: 'input' is the model's input; pick another name");
        } else if (auto [first, inserted] = everywhere_.emplace(layer.name, path); !inserted) {
          context_.problem(context_.location_of(path + ".name"), path + ".name: '" + layer.name +
                                                                    "' already names " + first->second + " (" +
                                                                    context_.location_of(first->second) + ")");
        }
      }
      if (const auto* block = layer.as<ResidualLayer>()) {
        collect(block->layers, path + ".layers");
        collect(block->shortcut, path + ".shortcut");
      }
    }
  }

  void walk(const std::vector<LayerSpec>& layers, const std::string& prefix) {
    for (size_t i = 0; i < layers.size(); ++i) {
      const LayerSpec& layer = layers[i];
      const std::string path = prefix + "[" + std::to_string(i) + "]";
      LayerContext problems(path, context_);
      check_layer(layer, problems);
      check_inputs(layer, path, problems);
      if (const auto* block = layer.as<ResidualLayer>()) {
        walk(block->layers, path + ".layers");
        walk(block->shortcut, path + ".shortcut");
      }
      if (!layer.name.empty()) defined_.emplace(layer.name, path);
    }
  }

 private:
  void check_inputs(const LayerSpec& layer, const std::string& path, LayerProblems& problems) {
    if (is_merge(layer.type()) && layer.inputs.size() < 2)
      problems.bad("inputs", "expected two or more tensor names to merge");
    if (!is_merge(layer.type()) && layer.inputs.size() > 1)
      problems.bad("inputs", std::string("a ") + to_string(layer.type()) +
                                 " layer reads one tensor; merge them first (add, concatenate, ...)");
    for (const std::string& input : layer.inputs) {
      if (input == kModelInputName || defined_.count(input)) continue;
      auto later = everywhere_.find(input);
      if (later != everywhere_.end() && later->second != path) {
        problems.bad("inputs", "'" + input + "' is defined later, by " + later->second + " (" +
                                   context_.location_of(later->second) +
                                   "); a layer reads only tensors defined before it, so the graph has no cycles");
      } else if (later != everywhere_.end()) {
        problems.bad("inputs", "'" + input + "' is this layer's own output; a layer cannot read itself");
      } else {
        std::vector<std::string> known{kModelInputName};
        for (const auto& entry : defined_) known.push_back(entry.first);
        const std::string nearest = nearest_word(input, known);
        problems.bad("inputs", "no tensor is named '" + input + "'" +
                                   (nearest.empty() ? "; defined so far: " + join(known, ", ")
                                                    : " (did you mean '" + nearest + "'?)"));
      }
    }
  }

  ReadContext& context_;
  std::map<std::string, std::string> everywhere_;  // name -> path of the layer it names
  std::map<std::string, std::string> defined_;     // the names defined so far in the walk
};

}  // namespace

void validate_graph(const std::vector<LayerSpec>& layers, ReadContext& context) {
  GraphWalker walker(context);
  walker.collect(layers, "model.layers");
  walker.walk(layers, "model.layers");
}

}  // namespace trainer
