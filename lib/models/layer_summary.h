#pragma once
// A Keras-style model summary table (torch-free).
#include <cstdint>
#include <string>
#include <vector>

namespace trainer {

struct LayerSummary {
  std::string name;                   // "conv1d_1", as Keras names layers
  std::vector<int64_t> output_shape;  // without the batch dimension
  int64_t parameters = 0;  // trainable and not (batchnorm's moving statistics, as Keras counts them)
  int64_t trainable = 0;
  int64_t multiply_adds = 0;  // one sample's forward pass (models/multiply_adds.h)
  std::vector<std::string> connected_to;  // the rows whose outputs it reads; graphs only
};

// "(None, 32, 8)": a shape without its batch dimension, as Keras prints it.
std::string shape_text(const std::vector<int64_t>& shape);

// Layer, output shape, parameter count (and for graphs what each layer reads);
// then totals with their size as float32, like Keras's model.summary(), and
// one sample's multiply-adds (`scripted`: some layer is torchscript, whose
// multiply-adds are not counted, and the line says so).
std::string format_summary(const std::string& model_name, const std::vector<LayerSummary>& layers, bool is_graph,
                           bool scripted = false);

}  // namespace trainer
