#include "train/experiment_setup.h"

#include <algorithm>
#include <optional>

#include "models/cancelled_bias.h"
#include "models/norm_chain_fusion.h"
#include "optim/weight_average.h"
#include "train/image_quality.h"
#include "train/scripted_loss.h"
#include "util/error.h"
#include "util/logging.h"
#include "util/stopwatch.h"
#include "util/text.h"

namespace trainer {

namespace {

// Every class needs an output: LibTorch would find out only at the first
// step, as an internal error ("Target 8 is out of bounds").
void check_outputs_cover_classes(const ExperimentConfig& config, const Model& model, const DataInfo& info) {
  if (config.loss.name != LossKind::kSparseCategoricalCrossentropy || info.classes <= 0) return;
  const auto& shape = model.summary.back().output_shape;
  if (shape.size() == 1 && shape[0] >= info.classes) return;
  throw ConfigError({"model.layers[" + std::to_string(config.model.layers.size() - 1) + "]: the model outputs " +
                     shape_text(shape) + " but the " + info.name + " data has " + std::to_string(info.classes) +
                     " classes; sparse_categorical_crossentropy needs one output per class (units: classes)"});
}

// trainer's fused kernels in place of the layer chains they cover
// (gpu.fused_kernels), on a model already on its GPU.
void fuse_for_gpu(Model& model, const GpuConfig& gpu) {
  if (!gpu.fused_kernels) return;
  // Without the kernels the model keeps LibTorch's layers as built: the
  // count is for the log alone.
  // Channels-last, every norm is fused, so that none converts the layout.
  const bool lone_norms = model.channels_last;
  if (!norm_chain_cuda_compiled()) {
    const int chains = fusible_norm_chains(model, lone_norms);
    if (chains > 0)
      log().info("fused kernels: this build has none (configured without a CUDA compiler); LibTorch's kernels run "
                 "the {} that could be fused", count_of(chains, "instance norm"));
    return;
  }
  const int chains = fuse_norm_chains(model, /*fuse_on_cpu=*/false, lone_norms);
  // Channels-last, the paddings no chain took keep the layout too.
  const int paddings = lone_norms ? keep_layout_in_paddings(model) : 0;
  if (chains > 0)
    log().info("fused kernels: {} run with the ReLU, dropout and reflection padding after them as one CUDA kernel "
               "each way{} (gpu.fused_kernels)", count_of(chains, "instance norm"),
               lone_norms ? ", channels-last, and " + count_of(paddings, "other reflection padding") +
                                " in trainer's layout-keeping kernels"
                          : "");
}

// Whether a model built for `a` fits data described by `b`.
bool same_model_inputs(const DataInfo& a, const DataInfo& b) {
  return a.input_shape == b.input_shape && a.token_inputs == b.token_inputs && a.vocabulary == b.vocabulary &&
         a.classes == b.classes && a.target_shape == b.target_shape;
}

// An image-to-image model must output images of the targets' shape.
void check_outputs_fit_targets(const ExperimentConfig& config, const Model& model, const DataInfo& info) {
  if (info.target_shape.empty()) return;
  const auto& shape = model.summary.back().output_shape;
  const bool ssim = std::find(config.metrics.begin(), config.metrics.end(), "ssim") != config.metrics.end();
  if (ssim && info.target_shape.size() == 3 && (info.target_shape.at(1) < kSsimWindow || info.target_shape.at(2) < kSsimWindow))
    throw ConfigError({"metrics: ssim needs images of at least " + std::to_string(kSsimWindow) + " x " +
                       std::to_string(kSsimWindow) + " pixels; the " + info.name + " targets are " +
                       shape_text(info.target_shape)});
  if (shape == info.target_shape) return;
  throw ConfigError({"model.layers[" + std::to_string(config.model.layers.size() - 1) + "]: the model outputs " +
                     shape_text(shape) + " but the " + info.name + " targets are " + shape_text(info.target_shape) +
                     (info.target_shape.size() == 1 ? "; the last layer must give one output per target (units: " +
                                                          std::to_string(info.target_shape[0]) + ")"
                                                    : "; the last layer must give the targets' channels and size")});
}

// data.degrade.on_device decided: auto degrades on the device when it is a
// GPU (degrade/deferred_degradation.h).
DataConfig with_degradation_placed(DataConfig data, const torch::Device& device) {
  if (data.dataset != DatasetKind::kImageDegrade) return data;
  if (data.degrade.on_device == DataPlacement::kAuto)
    data.degrade.on_device = device.is_cuda() ? DataPlacement::kDevice : DataPlacement::kHost;
  if (data.degrade.on_device == DataPlacement::kDevice)
    log().info("data: blurs, noise and augmentations applied on {} to windows cut on the CPU (data.degrade.on_device)",
               device.str());
  return data;
}

}  // namespace

Model build_seeded_model(const ExperimentConfig& config, const DataInfo& info) {
  torch::manual_seed(static_cast<uint64_t>(config.experiment.seed));
  // A loss file that cannot be read is reported before the data is.
  if (config.loss.name == LossKind::kTorchScript) load_scripted_loss(config.loss.path);
  Model model = build_model(config.model, info);
  check_outputs_cover_classes(config, model, info);
  check_outputs_fit_targets(config, model, info);
  return model;
}

DescribedModel build_model_from_description(const ExperimentConfig& config, const std::string& what) {
  const std::optional<DataInfo> info = preview_dataset(config.data);
  if (!info)
    throw DataError(config.data.path + ": " + what +
                        " builds the model from the data set's description (its shapes and classes) and cannot "
                        "read it here",
                    "run `trainer run` on this experiment file to see what is wrong with the data set");
  return {*info, build_seeded_model(config, *info)};
}

TrainingState load_weights_to_use(const std::string& checkpoint, Model& model, const ExperimentConfig& config,
                                  const torch::Device& device) {
  TrainingState state = load_checkpoint(checkpoint, *model.net, nullptr, device);
  if (config.train.ema.evaluate && state.weight_average.defined())
    WeightAverage::apply(model.net->parameters(), state.weight_average);
  return state;
}

Model build_model_to_inspect(const ExperimentConfig& config) {
  if (const std::optional<DataInfo> preview = preview_dataset(config.data); preview && !preview->vocabulary_stand_in)
    return build_seeded_model(config, *preview);
  const ConfigDescription described = describe_from_config(config.data);
  if (described.info) {
    log().info("the {} data is not read: its shapes come from the experiment file", described.info->name);
    return build_seeded_model(config, *described.info);
  }
  try {
    return prepare_experiment(config, torch::kCPU).model;
  } catch (const DataError& e) {
    const std::string fix = described.missing.empty()
                                ? "the " + std::string(to_string(config.data.dataset)) +
                                      " data decides the model's inputs, so summary reads it"
                                : "to look at the model without the data, give " + described.missing;
    throw DataError(e.what(), e.hint().empty() ? fix : e.hint() + "; " + fix);
  }
}

Experiment prepare_experiment(const ExperimentConfig& config, const torch::Device& device) {
  // The model is built before the data is read, from the data's preview, so
  // that a graph that cannot be built is reported at once, not after minutes
  // of loading; it is kept when the data turns out as previewed (the same
  // seed gives the same weights either way: loading draws no random numbers
  // from the global generator).
  const std::optional<DataInfo> preview = preview_dataset(config.data);
  std::optional<Model> early;
  if (preview) early = build_seeded_model(config, *preview);

  Stopwatch clock;
  DataSplits data = load_dataset(with_degradation_placed(config.data, device), config.experiment.seed);
  const auto& info = data.info;
  std::string shape;
  for (auto d : info.input_shape) shape += (shape.empty() ? "" : "x") + std::to_string(d);
  std::string targets = std::to_string(info.classes) + " classes";
  if (info.target_shape.size() == 1) targets = count_of(info.target_shape[0], "real target");
  if (info.target_shape.size() > 1) targets = "image targets of the same shape";
  log().info("data: {}, {} train / {} valid samples, input {} {}, {} ({:.1f} s)", info.name, info.train_size,
             info.valid_size, shape, info.token_inputs ? "tokens < " + std::to_string(info.vocabulary) : "floats",
             targets, clock.seconds());
  Model model = early && same_model_inputs(*preview, info) ? std::move(*early) : build_seeded_model(config, info);
  // Initialised on the CPU, so a seed gives the same weights on every device.
  place_model(model, device, config.gpu);
  return {std::move(data), std::move(model)};
}

void place_model(Model& model, const torch::Device& device, const GpuConfig& gpu) {
  if (device.is_cpu()) return;
  model.net->to(device);
  if (device.is_cuda() && model.channels_last && !gpu.channels_last) model.use_nchw();
  if (!device.is_cuda()) return;
  // Before the fusion, which may take the norms these convolutions feed.
  // Not on CPUs: oneDNN adds a bias within the convolution's own pass, so
  // there it would save nothing and only move CPU runs' rounding.
  if (gpu.skip_cancelled_biases) {
    const int skipped = cancel_normalised_biases(model);
    if (skipped > 0)
      log().info("{} run without their biases, which the instance norms after them cancel (gpu.skip_cancelled_biases)",
                 count_of(skipped, "convolution"));
  }
  fuse_for_gpu(model, gpu);
}

}  // namespace trainer
