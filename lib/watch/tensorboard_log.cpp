#include "watch/tensorboard_log.h"

#include "tensorboard/event_writer.h"

namespace trainer {

TensorBoardLog::TensorBoardLog(const std::string& run_dir) : writer_(std::make_unique<EventWriter>(run_dir)) {}

TensorBoardLog::~TensorBoardLog() = default;

const std::string& TensorBoardLog::path() const { return writer_->path(); }

void TensorBoardLog::on_start(int64_t global_step, const std::string& config_yaml) {
  if (global_step > 0) writer_->restart(global_step + 1);
  // Indented four spaces: Markdown shows it as code, line breaks kept.
  std::string markdown;
  size_t begin = 0;
  while (begin < config_yaml.size()) {
    size_t end = config_yaml.find('\n', begin);
    if (end == std::string::npos) end = config_yaml.size();
    markdown += "    " + config_yaml.substr(begin, end - begin) + "\n";
    begin = end + 1;
  }
  writer_->text("config", global_step, markdown);
}

void TensorBoardLog::on_step(const StepPoint& point) {
  writer_->scalar("step/loss", point.step, point.loss);
  writer_->scalar("step/lr", point.step, point.lr);
  writer_->scalar("step/samples_per_second", point.step, point.samples_per_second);
  if (point.loss_scale > 0) writer_->scalar("step/loss_scale", point.step, point.loss_scale);
}

void TensorBoardLog::on_epoch(const EpochRecord& record, int64_t global_step) {
  const auto scalar = [&](const std::string& tag, double value) { writer_->scalar(tag, global_step, value); };
  scalar("epoch/epoch", static_cast<double>(record.epoch));
  for (const MetricValue& metric : record.train) scalar("epoch/" + metric.key, metric.value);
  for (const MetricValue& metric : record.valid) scalar("epoch/val_" + metric.key, metric.value);
  scalar("epoch/lr", record.lr);
  scalar("epoch/samples_per_second", record.samples_per_second);
  scalar("epoch/seconds", record.seconds);
  if (record.train_seconds > 0) scalar("epoch/data_wait_fraction", record.data_wait_seconds / record.train_seconds);
  if (record.train_seconds > 0 && record.gpu_idle_for_data_seconds)
    scalar("epoch/gpu_idle_for_data_fraction", *record.gpu_idle_for_data_seconds / record.train_seconds);
  if (record.timed_steps > 0 && record.step_times.total() > 0) {
    const StepTimes& t = record.step_times;
    const double total = t.total();
    scalar("step_time/data", t.data / total);
    scalar("step_time/forward", t.forward / total);
    scalar("step_time/backward", t.backward / total);
    scalar("step_time/all_reduce", t.all_reduce / total);
    scalar("step_time/optimizer", t.optimizer / total);
  }
  if (record.peak_memory_bytes > 0)
    scalar("memory/peak_mib", static_cast<double>(record.peak_memory_bytes) / (1024.0 * 1024.0));
  if (record.loss_scale > 0) scalar("epoch/loss_scale", record.loss_scale);
  if (record.gpu_samples > 0) {
    scalar("gpu/utilization", record.gpu_utilization);
    scalar("gpu/memory_used_mib", static_cast<double>(record.gpu_memory_used_bytes) / (1024.0 * 1024.0));
  }
}

void TensorBoardLog::on_images(const std::vector<NamedImage>& images, int64_t global_step) {
  for (const NamedImage& named : images) writer_->image("images/" + named.name, global_step, named.image);
}

}  // namespace trainer
