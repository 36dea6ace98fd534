#include "config/validate.h"

#include <algorithm>
#include <regex>

#include "config/metric_spec.h"
#include "config/platform_support.h"

namespace trainer {
namespace {

void validate_metrics(const ExperimentConfig& config, ReadContext& context) {
  for (const auto& name : config.metrics) {
    if (parse_metric(name)) continue;
    context.problem(context.location_of("metrics"),
                    "metrics: unknown metric '" + name + "'; expected accuracy, topK (e.g. top5), mse or mae "
                    "(the loss is always reported)");
  }
}

void validate_devices(const ExperimentConfig& config, ReadContext& context) {
  static const std::regex form(R"(^(cpu|gpu:(\d+|all))$)");
  bool all_valid = true;
  for (const auto& entry : config.devices.entries) {
    if (std::regex_match(entry, form)) continue;
    all_valid = false;
    context.problem(context.location_of("devices"),
                    "devices: '" + entry + "' is not a device; expected cpu, gpu:N, gpu:N,M,... or gpu:all");
  }
  if (!all_valid) return;
  const auto& entries = config.devices.entries;
  const auto cpus = std::count(entries.begin(), entries.end(), "cpu");
  if (cpus > 0 && cpus < static_cast<long>(entries.size()))
    context.problem(context.location_of("devices"),
                    "devices: cpu and gpu entries cannot be mixed; every rank trains on the same kind of device");
  if (std::count(entries.begin(), entries.end(), "gpu:all") > 0 && entries.size() > 1)
    context.problem(context.location_of("devices"), "devices: gpu:all stands alone (it means every visible GPU)");
}

void validate_precision(const ExperimentConfig& config, ReadContext& context) {
  // LibTorch 1.13's CPU autocast knows bf16 only; 2.x's also fp16.
  const bool on_cpus = !config.devices.entries.empty() && config.devices.entries.front() == "cpu";
  if (config.precision == Precision::kFp16 && on_cpus && !cpu_fp16_autocast_supported())
    context.problem(context.location_of("precision"),
                    "precision: fp16 is for GPUs (this LibTorch's CPU autocast has no fp16); on a CPU use bf16 (or "
                    "mixed_precision: true, which picks bf16 there)");
}

size_t spatial_dims(LayerKind kind) {
  switch (kind) {
    case LayerKind::kConv2d:
    case LayerKind::kMaxPool2d:
    case LayerKind::kAvgPool2d:
      return 2;
    default:
      return 1;
  }
}

void validate_dims(const Dims& dims, size_t rank, const std::string& path, ReadContext& context) {
  if (dims.empty() || dims.size() == 1 || dims.size() == rank) return;
  context.problem(context.location_of(path), path + ": expected 1 or " + std::to_string(rank) + " sizes, got " +
                                                 std::to_string(dims.size()));
}

void validate_layer(const LayerSpec& layer, const std::string& path, ReadContext& context) {
  const auto here = [&](const std::string& key) { return context.location_of(path + "." + key); };
  const size_t rank = spatial_dims(layer.type);
  switch (layer.type) {
    case LayerKind::kConv1d:
    case LayerKind::kConv2d:
      if (layer.units.is_keyword() || layer.units.value < 1)
        context.problem(here("filters"), path + ".filters: expected a positive integer");
      if (layer.kernel_size.empty())
        context.problem(here("kernel_size"), path + ": missing required key 'kernel_size'");
      validate_dims(layer.kernel_size, rank, path + ".kernel_size", context);
      validate_dims(layer.strides, rank, path + ".strides", context);
      break;
    case LayerKind::kMaxPool1d:
    case LayerKind::kMaxPool2d:
    case LayerKind::kAvgPool1d:
    case LayerKind::kAvgPool2d:
      validate_dims(layer.pool_size, rank, path + ".pool_size", context);
      validate_dims(layer.strides, rank, path + ".strides", context);
      if (layer.padding.mode == ConvPadding::kExplicit)
        context.problem(here("padding"), path + ".padding: pooling takes valid or same");
      break;
    case LayerKind::kDense:
      if (layer.units.keyword == "vocabulary" || (!layer.units.is_keyword() && layer.units.value < 1))
        context.problem(here("units"), path + ".units: expected a positive integer or 'classes'");
      break;
    case LayerKind::kEmbedding:
      if (layer.input_dim.keyword == "classes")
        context.problem(here("input_dim"), path + ".input_dim: expected a positive integer or 'vocabulary'");
      if (layer.units.is_keyword() || layer.units.value < 1)
        context.problem(here("output_dim"), path + ".output_dim: expected a positive integer");
      break;
    default:
      break;
  }
}

}  // namespace

void validate_experiment(const ExperimentConfig& config, ReadContext& context) {
  validate_metrics(config, context);
  validate_devices(config, context);
  validate_precision(config, context);
  if (config.model.layers.empty())
    context.problem(context.location_of("model"), "model.layers: expected at least one layer");
  for (size_t i = 0; i < config.model.layers.size(); ++i)
    validate_layer(config.model.layers[i], "model.layers[" + std::to_string(i) + "]", context);
  if (config.data.synthetic.shape.empty())
    context.problem(context.location_of("data.synthetic.shape"), "data.synthetic.shape: expected at least one size");
}

}  // namespace trainer
