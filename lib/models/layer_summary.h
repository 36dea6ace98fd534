#pragma once
// A Keras-style model summary table (torch-free).
#include <cstdint>
#include <string>
#include <vector>

namespace trainer {

struct LayerSummary {
  std::string name;                   // "conv1d_1", as Keras names layers
  std::vector<int64_t> output_shape;  // without the batch dimension
  int64_t parameters = 0;
  int64_t trainable = 0;
};

// "(None, 32, 8)": a shape without its batch dimension, as Keras prints it.
std::string shape_text(const std::vector<int64_t>& shape);

// Layer, output shape, parameter count; then totals, like model.summary().
std::string format_summary(const std::string& model_name, const std::vector<LayerSummary>& layers);

}  // namespace trainer
