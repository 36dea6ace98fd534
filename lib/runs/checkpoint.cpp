#include "runs/checkpoint.h"

#include "formats/file_bytes.h"
#include "models/model.h"
#include "util/atomic_file.h"
#include "util/error.h"
#include "util/logging.h"
#include "util/torch_compat.h"

namespace trainer {
namespace {
constexpr int64_t kFormatVersion = 1;

int64_t read_int(torch::serialize::InputArchive& archive, const char* key) {
  c10::IValue value;
  archive.read(key, value);
  return value.toInt();
}

// Absent from checkpoints written before train.monitor: nothing measured yet.
void read_monitor_counters(torch::serialize::InputArchive& archive, MonitorCounters& counters) {
  c10::IValue value;
  if (archive.try_read("monitor_best", value) && value.isDouble()) counters.best = value.toDouble();
  if (archive.try_read("monitor_best_epoch", value) && value.isInt()) counters.best_epoch = value.toInt();
  if (archive.try_read("monitor_patience_best", value) && value.isDouble()) counters.patience_best = value.toDouble();
  if (archive.try_read("monitor_waited", value) && value.isInt()) counters.waited = value.toInt();
}

// The 4-D parameters and buffers of `model`, each with the layout it was
// built in. LibTorch's load adopts the file's strides, not only its values:
// a checkpoint written channels-last (a CPU run) would put a GPU model on
// cuDNN's channels-last kernels, and one written before single-channel
// tensors got fresh channels-last strides (or by another program) a CPU
// model on oneDNN's slow NCHW path.
std::vector<std::pair<torch::Tensor, torch::MemoryFormat>> layouts_of(torch::nn::Module& model) {
  std::vector<std::pair<torch::Tensor, torch::MemoryFormat>> found;
  for (const auto& t : model.parameters())
    if (t.dim() == 4) found.emplace_back(t, t.suggest_memory_format());
  for (const auto& t : model.buffers())
    if (t.dim() == 4) found.emplace_back(t, t.suggest_memory_format());
  return found;
}

// After a load: the values the file held, in the layout the model was built in.
void restore_layouts(std::vector<std::pair<torch::Tensor, torch::MemoryFormat>>& tensors) {
  torch::NoGradGuard no_grad;
  for (auto& [t, format] : tensors) {
    if (t.dim() != 4 || t.suggest_memory_format() == format) continue;  // another shape: refused below
    t.set_data(format == torch::MemoryFormat::ChannelsLast ? Model::in_channels_last(t) : t.contiguous());
  }
}

}  // namespace

void save_checkpoint(const std::string& path, torch::nn::Module& model, const torch::optim::Optimizer& optimizer,
                     const TrainingState& state) {
  require_finite_weights(model, path);
  // Streamed through the seal into the file, a megabyte at a time, never
  // held whole (a second copy of every weight and optimizer state in host
  // memory). Through our own writer, not LibTorch's file writer, which
  // throws again from its destructor when the disk fills and so ends the
  // process: ours keeps a failed write's error, lets the serialiser run to
  // its end, and reports a full disk as an IoError; the temporary file is
  // removed and the older checkpoints stay.
  write_atomic_with(path, [&](const std::string& tmp) {
    FileSink file(tmp, path);
    CheckpointSealer sealer([&file](std::string_view bytes) { file.write(bytes); }, path);
    try {
      torch::serialize::OutputArchive archive;
      torch::serialize::OutputArchive model_archive;
      model.save(model_archive);
      archive.write("model", model_archive);
      torch::serialize::OutputArchive optimizer_archive;
      optimizer.save(optimizer_archive);
      archive.write("optimizer", optimizer_archive);
      archive.write("format_version", c10::IValue(kFormatVersion));
      archive.write("epoch", c10::IValue(state.epoch));
      archive.write("step_in_epoch", c10::IValue(state.step_in_epoch));
      archive.write("global_step", c10::IValue(state.global_step));
      archive.write("rng_cpu", compat::generator_state(compat::default_cpu_generator()));
      if (state.epoch_metric_sums.defined()) archive.write("epoch_metric_sums", state.epoch_metric_sums);
      if (state.loss_scaler.defined()) archive.write("loss_scaler", state.loss_scaler);
      if (state.rng_gpu.defined()) archive.write("rng_gpu", state.rng_gpu);
      if (state.weight_average.defined()) archive.write("weight_average", state.weight_average);
      if (!state.optimizer.empty()) archive.write("optimizer_name", c10::IValue(state.optimizer));
      archive.write("monitor_best", c10::IValue(state.monitor.best));
      archive.write("monitor_best_epoch", c10::IValue(state.monitor.best_epoch));
      archive.write("monitor_patience_best", c10::IValue(state.monitor.patience_best));
      archive.write("monitor_waited", c10::IValue(state.monitor.waited));
      archive.save_to([&sealer](const void* data, size_t size) {
        sealer.append(data, size);
        return size;
      });
    } catch (const c10::Error& e) {
      throw IoError("cannot serialise checkpoint " + path + ": " + e.what_without_backtrace());
    }
    sealer.finish();
    file.close();
  });
}

void require_finite_weights(torch::nn::Module& model, const std::string& path) {
  const auto bad = non_finite_tensors(model);
  if (bad.empty()) return;
  throw DivergedError("not saving checkpoint " + path + ": the weights are not finite (" + bad.front() +
                          (bad.size() > 1 ? " and " + std::to_string(bad.size() - 1) + " more" : std::string()) +
                          " hold NaN or infinity)",
                      "the training diverged: lower optimizer.lr, or set optimizer.clip_norm; the older checkpoints "
                      "are kept");
}

std::vector<std::string> non_finite_tensors(torch::nn::Module& model) {
  std::vector<std::string> names;
  std::vector<torch::Tensor> finite;
  for (const auto& item : model.named_parameters()) {
    names.push_back(item.key());
    finite.push_back(torch::isfinite(item.value().detach()).all());
  }
  for (const auto& item : model.named_buffers()) {
    if (!item.value().is_floating_point()) continue;
    names.push_back(item.key());
    finite.push_back(torch::isfinite(item.value()).all());
  }
  std::vector<std::string> bad;
  if (finite.empty()) return bad;
  const torch::Tensor flags = torch::stack(finite).cpu();
  for (size_t i = 0; i < names.size(); ++i)
    if (!flags[static_cast<int64_t>(i)].item<bool>()) bad.push_back(names[i]);
  return bad;
}

TrainingState load_checkpoint(const std::string& path, torch::nn::Module& model, torch::optim::Optimizer* optimizer,
                              const torch::Device& device, const std::string& optimizer_name) {
  TrainingState state;
  std::string bytes;
  try {
    bytes = read_file_bytes(path);
  } catch (const DataError& e) {
    throw IoError(e.what());
  }
  if (verify_checkpoint(bytes, path) == Seal::kAbsent)
    log().warn("{} has no SHA-256 seal (written before checkpoints were sealed); its CRC-32s match", path);
  try {
    torch::serialize::InputArchive archive;
    archive.load_from(bytes.data(), bytes.size(), device);
    if (read_int(archive, "format_version") != kFormatVersion)
      throw IoError(path + ": checkpoint format version is not " + std::to_string(kFormatVersion));
    torch::serialize::InputArchive model_archive;
    archive.read("model", model_archive);
    // Module::load replaces tensors whatever their shape; a checkpoint of
    // another model must be refused, not silently adopted.
    std::vector<std::pair<std::string, std::vector<int64_t>>> shapes;
    for (const auto& item : model.named_parameters()) shapes.emplace_back(item.key(), item.value().sizes().vec());
    for (const auto& item : model.named_buffers()) shapes.emplace_back(item.key(), item.value().sizes().vec());
    auto layouts = layouts_of(model);
    model.load(model_archive);
    restore_layouts(layouts);
    auto after = model.named_parameters();
    auto buffers = model.named_buffers();
    for (const auto& [name, shape] : shapes) {
      const torch::Tensor* loaded = after.find(name);
      if (!loaded) loaded = buffers.find(name);
      if (loaded && loaded->sizes().vec() != shape)
        throw IoError(path + ": tensor '" + name + "' has shape " + c10::str(loaded->sizes()) +
                          " in the checkpoint but " + c10::str(c10::IntArrayRef(shape)) + " in this experiment's model",
                      "the checkpoint belongs to a different model; resume with the experiment file that wrote it");
    }
    if (const auto bad = non_finite_tensors(model); !bad.empty())
      throw UnusableCheckpoint("checkpoint " + path + " holds non-finite weights (" + bad.front() +
                                   " is NaN or infinite): the training had diverged when it was saved",
                               "resume from an older checkpoint of the run");
    // Another optimizer's state would fail inside LibTorch as an internal
    // assertion; checkpoints from before the name was stored are not checked.
    c10::IValue saved_name;
    if (archive.try_read("optimizer_name", saved_name) && saved_name.isString())
      state.optimizer = saved_name.toStringRef();
    if (optimizer && !optimizer_name.empty() && !state.optimizer.empty() && state.optimizer != optimizer_name)
      throw UsageError(path + " was trained with optimizer " + state.optimizer + ", but the experiment says " +
                           optimizer_name,
                       "resume with optimizer.name: " + state.optimizer + " (--set optimizer.name=" + state.optimizer +
                           "), or start a new run");
    if (optimizer) {
      torch::serialize::InputArchive optimizer_archive;
      archive.read("optimizer", optimizer_archive);
      optimizer->load(optimizer_archive);
    }
    state.epoch = read_int(archive, "epoch");
    state.step_in_epoch = read_int(archive, "step_in_epoch");
    state.global_step = read_int(archive, "global_step");
    torch::Tensor rng;
    archive.read("rng_cpu", rng);
    auto generator = compat::default_cpu_generator();
    compat::set_generator_state(generator, rng.cpu());
    if (state.step_in_epoch > 0) archive.read("epoch_metric_sums", state.epoch_metric_sums);
    // Absent from runs without loss scaling (and from older checkpoints).
    torch::Tensor scaler;
    if (archive.try_read("loss_scaler", scaler)) state.loss_scaler = scaler.cpu();
    torch::Tensor rng_gpu;
    if (archive.try_read("rng_gpu", rng_gpu)) state.rng_gpu = rng_gpu.cpu();
    // Absent from runs without train.ema (and from older checkpoints).
    torch::Tensor average;
    if (archive.try_read("weight_average", average)) state.weight_average = average.cpu();
    read_monitor_counters(archive, state.monitor);
  } catch (const c10::Error& e) {
    throw IoError("cannot load checkpoint " + path + ": " + e.what_without_backtrace(),
                  "is it a trainer checkpoint of this experiment's model?");
  }
  return state;
}

std::string load_newest_usable(const ResumePoint& point, TrainingState& state, torch::nn::Module& model,
                               torch::optim::Optimizer* optimizer, const torch::Device& device,
                               const std::string& optimizer_name) {
  std::string reasons;
  for (const std::string& candidate : point.checkpoints) {
    try {
      state = load_checkpoint(candidate, model, optimizer, device, optimizer_name);
      return candidate;
    } catch (const UnusableCheckpoint& e) {
      if (point.named_file) throw;
      log().warn("skipping {}", e.what());
      reasons += std::string("\n  ") + e.what();
    }
  }
  throw IoError("no usable checkpoint in " + point.run.checkpoints() + ":" + reasons,
                "every checkpoint of the run is damaged or diverged; start a new run");
}

}  // namespace trainer
