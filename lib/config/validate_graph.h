#pragma once
// The checks of `model.layers` that need no shapes: each layer's own keys,
// and the graph the names make (unique names, every input defined before
// the layer that reads it, so no cycles, merges given two or more inputs).
// Shapes are checked when the model is built (lib/models/graph_builder.h).
#include <vector>

#include "config/read_context.h"
#include "spec/layer_spec.h"

namespace trainer {

// Problems go to `context`, at the layer's (or its key's) line.
void validate_graph(const std::vector<LayerSpec>& layers, ReadContext& context);

// The name of the model's input tensor in `inputs`.
inline constexpr const char* kModelInputName = "input";

}  // namespace trainer
