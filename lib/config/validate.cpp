#include "config/validate.h"

#include "util/text.h"

#include <algorithm>
#include <regex>
#include <utility>

#include "config/validate_graph.h"
#include "spec/metric_spec.h"
#include "spec/monitor_spec.h"

namespace trainer {
namespace {

void validate_metrics(const ExperimentConfig& config, ReadContext& context) {
  const bool images = has_image_targets(config.data);
  const bool real = has_real_targets(config.data);
  const std::string dataset = to_string(config.data.dataset);
  const std::string targets = images ? dataset + " has image targets" : dataset + " has real-valued targets (task: regression)";
  for (const auto& name : config.metrics) {
    const auto spec = parse_metric(name);
    const bool image_metric = spec && (spec->kind == MetricKind::kPsnr || spec->kind == MetricKind::kSsim);
    if (!spec)
      context.problem(context.location_of("metrics"),
                      "metrics: unknown metric '" + name + "'; expected accuracy, topK (e.g. top5), precision, recall, "
                      "f1, mse, mae, psnr or ssim (the loss is always reported)");
    else if (real && spec->needs_classes())
      context.problem(context.location_of("metrics"), "metrics: " + name + " counts right classes, and " + targets +
                                                          (images ? "; use psnr, ssim, mse or mae" : "; use mse or mae"));
    else if (!images && image_metric)
      context.problem(context.location_of("metrics"),
                      "metrics: " + name + " compares images, and " + dataset +
                          (real ? " has real-valued targets; use mse or mae" : " has class labels; use accuracy or topK"));
  }
  if (real && config.loss.name == LossKind::kSparseCategoricalCrossentropy)
    context.problem(context.location_of_any({"loss.name", "data.dataset"}),
                    "loss.name: " + targets + ", not classes; use " + (images ? "l1, mse or charbonnier" : "mse, mae or l1"));
}

// Probabilities the loss expects, logits the model gives: it would train to a
// loss near zero at chance accuracy without a word (log of clipped values).
void validate_loss_input(const ExperimentConfig& config, ReadContext& context) {
  if (config.model.layers.empty() || config.loss.name != LossKind::kSparseCategoricalCrossentropy ||
      has_real_targets(config.data) ||
      config.loss.from_logits || config.model.layers.back().activation() == Activation::kSoftmax)
    return;
  const std::string last = "model.layers[" + std::to_string(config.model.layers.size() - 1) + "]";
  // The layer's own line (its type is always given), unless a --set made the mismatch.
  context.problem(context.location_of_any({last + ".type", last + ".activation", "loss.from_logits", "loss.name"}),
                  last + ": the last layer outputs unbounded values (no softmax), but loss.from_logits is false, "
                         "so sparse_categorical_crossentropy would take them for probabilities; give the last layer "
                         "activation: softmax, or set loss: {from_logits: true}");
}

// Label smoothing and class weights are the cross-entropy's.
void validate_class_loss_keys(const ExperimentConfig& config, ReadContext& context) {
  if (config.loss.name == LossKind::kSparseCategoricalCrossentropy) return;
  const std::string loss = to_string(config.loss.name);
  if (config.loss.label_smoothing > 0)
    context.problem(context.location_of_any({"loss.label_smoothing", "loss.name"}),
                    "loss.label_smoothing: smooths class labels; " + loss + " compares values (use it with "
                    "sparse_categorical_crossentropy)");
  if (config.loss.class_weights.any())
    context.problem(context.location_of_any({"loss.class_weights", "loss.name"}),
                    "loss.class_weights: weights classes; " + loss + " compares values (use them with "
                    "sparse_categorical_crossentropy)");
}

// The torchscript loss is its file; no other loss reads one.
void validate_loss_path(const ExperimentConfig& config, ReadContext& context) {
  const bool scripted = config.loss.name == LossKind::kTorchScript;
  if (scripted && config.loss.path.empty())
    context.problem(context.location_of_any({"loss.name", "loss"}),
                    "loss: the torchscript loss needs path: the saved TorchScript module (torch.jit.script(m).save)");
  if (!scripted && !config.loss.path.empty())
    context.problem(context.location_of_any({"loss.path", "loss.name"}),
                    "loss.path: only the torchscript loss reads a file; " + std::string(to_string(config.loss.name)) +
                        " is built in (set name: torchscript, or leave path out)");
}

// log.dir/NAME/latest is the link to the newest run.
void validate_run_name(const ExperimentConfig& config, ReadContext& context) {
  if (config.log.run_name == "latest")
    context.problem(context.location_of("log.run_name"),
                    "log.run_name: 'latest' is the link to the newest run of the experiment; pick another name");
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
  if (config.train.cuda_graph == CudaGraphMode::kOn && cpus > 0)
    context.problem(context.location_of_any({"train.cuda_graph", "devices"}),
                    "train.cuda_graph: on captures the step on a GPU, and devices: " + join(entries, ",") +
                        " has none; use auto (eager on CPUs) or a gpu device");
  // Each rank would search on its own device and might find another number.
  if (config.train.batch_size.automatic && (entries.size() > 1 || entries.front() == "gpu:all"))
    context.problem(context.location_of_any({"train.batch_size", "devices"}),
                    "train.batch_size: auto is for a run on one device, not devices: " + join(entries, ",") +
                        "; find the batch with trainer bench --find-max-batch on one device and write the number");
}

void validate_images(const DataConfig& data, ReadContext& context) {
  const auto& size = data.images.size;
  if (!size.empty() && size.size() != 2)
    context.problem(context.location_of("data.images.size"),
                    "data.images.size: expected [height, width], or nothing for the files' own size");
  if (data.dataset == DatasetKind::kImageFolder && data.path.empty())
    context.problem(context.location_of("data.path"), "data.path: image_folder needs the folder of the training "
                                                      "images (one subfolder per class)");
  if (data.dataset == DatasetKind::kImagePairs && data.path.empty())
    context.problem(context.location_of("data.path"), "data.path: image_pairs needs the folder of the pairs");
  if (data.dataset == DatasetKind::kTabular && data.path.empty())
    context.problem(context.location_of("data.path"), "data.path: tabular needs the .csv, .npy or .npz file");
  if (data.dataset == DatasetKind::kTabular && data.path.size() >= 4 && data.path.substr(data.path.size() - 4) == ".npy" &&
      data.tabular.targets_path.empty())
    context.problem(context.location_of("data.tabular.targets_path"),
                    "data.tabular.targets_path: .npy features need the .npy file of their targets");
  if (data.dataset == DatasetKind::kTabular && !data.tabular.columns.empty() && !data.tabular.exclude.empty())
    context.problem(context.location_of("data.tabular.exclude"),
                    "data.tabular.exclude: give the feature columns (data.tabular.columns) or those to leave out "
                    "(exclude), not both");
  if (data.dataset == DatasetKind::kTabular && (!data.tabular.columns.empty() || !data.tabular.exclude.empty()) &&
      (data.path.size() < 4 || data.path.substr(data.path.size() - 4) != ".csv"))
    context.problem(context.location_of(data.tabular.columns.empty() ? "data.tabular.exclude" : "data.tabular.columns"),
                    std::string(data.tabular.columns.empty() ? "data.tabular.exclude" : "data.tabular.columns") +
                        ": chooses a CSV file's columns by name; numpy arrays have none");
  for (const std::string& column : data.tabular.columns)
    if (!data.tabular.target.empty() && column == data.tabular.target)
      context.problem(context.location_of("data.tabular.columns"),
                      "data.tabular.columns: '" + column + "' is the target (data.tabular.target), not a feature");
  if (data.dataset == DatasetKind::kImageDegrade && data.path.empty())
    context.problem(context.location_of("data.path"), "data.path: image_degrade needs the folder of the sharp images");
  if (!has_image_targets(data)) {
    const std::string dataset = to_string(data.dataset);
    if (data.patch_size > 0)
      context.problem(context.location_of("data.patch_size"),
                      "data.patch_size: patches are cut for image_pairs and image_degrade, not " + dataset);
    if (data.augment.any() && data.dataset != DatasetKind::kImageFolder)
      context.problem(context.location_of("data.augment"),
                      "data.augment: augments image_folder, image_pairs and image_degrade, not " + dataset);
  }
  if (has_image_targets(data) && data.augment.classifier_only())
    context.problem(context.location_of("data.augment"),
                    "data.augment: crop_padding, rotation, contrast and saturation change a classifier's images "
                    "(image_folder); " + std::string(to_string(data.dataset)) + " augments input and target alike "
                    "with flip_horizontal, flip_vertical, rotate90 and brightness");
  if (data.dataset == DatasetKind::kImageFolder && data.augment.saturation > 0 &&
      data.images.color_mode == ColorMode::kGrayscale)
    context.problem(context.location_of_any({"data.augment.saturation", "data.augment"}),
                    "data.augment.saturation: grayscale images have no saturation (data.images.color_mode)");
  for (const auto& [key, count] : {std::pair<const char*, int64_t>{"data.patches_per_image", data.patches_per_image},
                                    {"data.validation_patches_per_image", data.validation_patches_per_image}})
    if (data.patch_size == 0 && count > 1)
      context.problem(context.location_of(key),
                      std::string(key) + ": needs data.patch_size (whole images are one sample each)");
  if (data.pairs.input == data.pairs.target)
    context.problem(context.location_of("data.pairs.target"), "data.pairs: input and target must be different folders");
  if (data.images.resize == ResizeMode::kCrop && size.empty())
    context.problem(context.location_of("data.images.resize"),
                    "data.images.resize: crop needs data.images.size (the aspect ratio to crop to)");
}

// A profile of an epoch the run never reaches would silently not be taken.
// One way to say how fast the average forgets.
void validate_ema(const TrainConfig& train, ReadContext& context) {
  if (train.ema.decay > 0 && train.ema.half_life > 0)
    context.problem(context.location_of_any({"train.ema.decay", "train.ema.half_life"}),
                    "train.ema: give decay or half_life, not both");
}

void validate_profile(const TrainConfig& train, ReadContext& context) {
  if (train.profile.epoch > train.epochs)
    context.problem(context.location_of_any({"train.profile.epoch", "train.epochs"}),
                    "train.profile.epoch: " + std::to_string(train.profile.epoch) + " is past the last epoch (" +
                        "train.epochs: " + std::to_string(train.epochs) + ")");
}

// A monitor naming no figure would keep no best.pt and never stop early,
// silently.
void validate_monitor(const ExperimentConfig& config, ReadContext& context) {
  if (config.train.monitor.empty() || resolve_monitor(config.train, config.metrics)) return;
  context.problem(context.location_of_any({"train.monitor", "metrics"}),
                  "train.monitor: '" + config.train.monitor + "' names no figure this run reports; expected one of " +
                      monitor_choices(config.metrics));
}

}  // namespace

void validate_experiment(const ExperimentConfig& config, ReadContext& context) {
  validate_metrics(config, context);
  validate_loss_path(config, context);
  validate_devices(config, context);
  validate_run_name(config, context);
  if (config.model.layers.empty())
    context.problem(context.location_of("model.layers"), "model.layers: expected at least one layer");
  validate_graph(config.model.layers, context);
  if (config.data.synthetic.shape.empty())
    context.problem(context.location_of("data.synthetic.shape"), "data.synthetic.shape: expected at least one size");
  validate_images(config.data, context);
  validate_loss_input(config, context);
  validate_class_loss_keys(config, context);
  validate_profile(config.train, context);
  validate_ema(config.train, context);
  validate_monitor(config, context);
}

}  // namespace trainer
