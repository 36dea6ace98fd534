#include "models/layer_summary.h"

#include <cstdio>
#include <sstream>

#include "util/text.h"

namespace trainer {
namespace {

// 332856 -> "332,856"
std::string with_commas(int64_t value) {
  std::string digits = std::to_string(value);
  for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3) digits.insert(static_cast<size_t>(i), ",");
  return digits;
}

// 332856 parameters -> "1.27 MiB" (float32 weights).
std::string weight_size(int64_t parameters) {
  char text[32];
  const double bytes = static_cast<double>(parameters) * 4;
  if (bytes < 1024.0) std::snprintf(text, sizeof text, "%.0f B", bytes);
  else if (bytes < 1024.0 * 1024.0) std::snprintf(text, sizeof text, "%.2f KiB", bytes / 1024.0);
  else std::snprintf(text, sizeof text, "%.2f MiB", bytes / (1024.0 * 1024.0));
  return text;
}

std::string row(const std::string& a, const std::string& b, const std::string& c, const std::string& d) {
  char line[256];
  std::snprintf(line, sizeof line, "%-28s %-26s %12s", a.c_str(), b.c_str(), c.c_str());
  std::string text = line;
  if (!d.empty()) text += "  " + d;
  return text + "\n";
}

// "conv2d[0][0], add[0][0]", as Keras's functional summary writes them.
std::string connections(const std::vector<std::string>& rows) {
  if (rows.empty()) return "-";
  std::vector<std::string> parts;
  for (const auto& r : rows) parts.push_back(r + "[0][0]");
  return join(parts, ", ");
}

}  // namespace

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string text = "(None";
  for (auto d : shape) text += ", " + std::to_string(d);
  return text + ")";
}

std::string format_summary(const std::string& model_name, const std::vector<LayerSummary>& layers, bool is_graph,
                           bool scripted) {
  const size_t width = is_graph ? 100 : 68;
  const std::string rule(width, '_');
  const std::string double_rule(width, '=');
  std::ostringstream out;
  out << "Model: \"" << model_name << "\"\n" << rule << "\n";
  out << row("Layer (type)", "Output Shape", "Param #", is_graph ? "Connected to" : "") << double_rule << "\n";
  int64_t total = 0, trainable = 0, multiply_adds = 0;
  for (size_t i = 0; i < layers.size(); ++i) {
    const auto& layer = layers[i];
    out << row(layer.name, shape_text(layer.output_shape), with_commas(layer.parameters),
               is_graph ? connections(layer.connected_to) : "");
    out << (i + 1 < layers.size() ? "\n" : "");
    total += layer.parameters;
    trainable += layer.trainable;
    multiply_adds += layer.multiply_adds;
  }
  out << double_rule << "\n";
  out << "Total params: " << with_commas(total) << " (" << weight_size(total) << ")\n";
  out << "Trainable params: " << with_commas(trainable) << " (" << weight_size(trainable) << ")\n";
  out << "Non-trainable params: " << with_commas(total - trainable) << " (" << weight_size(total - trainable)
      << ")\n"
      << "Multiply-adds of one sample's forward pass: " << format_count_si(static_cast<double>(multiply_adds))
      << (scripted ? " (torchscript layers not counted)" : "") << "\n"
      << rule << "\n";
  return out.str();
}

}  // namespace trainer
