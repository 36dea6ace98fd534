#include "models/layer_summary.h"

#include <cstdio>
#include <sstream>

namespace trainer {
namespace {

// 332856 -> "332,856"
std::string with_commas(int64_t value) {
  std::string digits = std::to_string(value);
  for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3) digits.insert(static_cast<size_t>(i), ",");
  return digits;
}

std::string row(const std::string& a, const std::string& b, const std::string& c) {
  char line[160];
  std::snprintf(line, sizeof line, "%-28s %-26s %12s\n", a.c_str(), b.c_str(), c.c_str());
  return line;
}

}  // namespace

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string text = "(None";
  for (auto d : shape) text += ", " + std::to_string(d);
  return text + ")";
}

std::string format_summary(const std::string& model_name, const std::vector<LayerSummary>& layers) {
  const std::string rule(68, '_');
  const std::string double_rule(68, '=');
  std::ostringstream out;
  out << "Model: \"" << model_name << "\"\n" << rule << "\n";
  out << row("Layer (type)", "Output Shape", "Param #") << double_rule << "\n";
  int64_t total = 0, trainable = 0;
  for (size_t i = 0; i < layers.size(); ++i) {
    const auto& layer = layers[i];
    out << row(layer.name, shape_text(layer.output_shape), with_commas(layer.parameters));
    out << (i + 1 < layers.size() ? "\n" : "");
    total += layer.parameters;
    trainable += layer.trainable;
  }
  out << double_rule << "\n";
  out << "Total params: " << with_commas(total) << "\n";
  out << "Trainable params: " << with_commas(trainable) << "\n";
  out << "Non-trainable params: " << with_commas(total - trainable) << "\n" << rule << "\n";
  return out.str();
}

}  // namespace trainer
