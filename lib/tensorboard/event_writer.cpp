#include "tensorboard/event_writer.h"

#include <chrono>
#include <filesystem>

#include <unistd.h>

#include "tensorboard/event.pb.h"
#include "tensorboard/tfrecord_writer.h"
#include "util/text.h"

namespace trainer {
namespace {

namespace pb = trainer::tensorboard;

double wall_time() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// A file name not yet taken in `folder`: a run resumed within the second
// it was started gets a suffix rather than the old file.
std::string free_path(const std::string& folder) {
  const auto seconds = static_cast<int64_t>(wall_time());
  const std::string base = folder + "/" + event_file_name(seconds, host_name().empty() ? "localhost" : host_name());
  std::string path = base;
  for (int n = 1; std::filesystem::exists(path); ++n) path = base + "." + std::to_string(n);
  return path;
}

pb::Event event_at(int64_t step) {
  pb::Event event;
  event.set_wall_time(wall_time());
  event.set_step(step);
  return event;
}

}  // namespace

std::string event_file_name(int64_t seconds, const std::string& host) {
  return "events.out.tfevents." + std::to_string(seconds) + "." + host;
}

EventWriter::EventWriter(const std::string& folder) : file_(std::make_unique<TfRecordWriter>(free_path(folder))) {
  pb::Event event = event_at(0);
  event.set_file_version("brain.Event:2");
  write_event(event.SerializeAsString());
}

EventWriter::~EventWriter() = default;

const std::string& EventWriter::path() const { return file_->path(); }

void EventWriter::write_event(const std::string& serialized) { file_->write(serialized); }

void EventWriter::scalar(const std::string& tag, int64_t step, double value) {
  pb::Event event = event_at(step);
  pb::Summary::Value* entry = event.mutable_summary()->add_value();
  entry->set_tag(tag);
  entry->set_simple_value(static_cast<float>(value));
  write_event(event.SerializeAsString());
}

void EventWriter::text(const std::string& tag, int64_t step, const std::string& markdown) {
  pb::Event event = event_at(step);
  pb::Summary::Value* entry = event.mutable_summary()->add_value();
  entry->set_tag(tag);
  // The text plugin claims string tensors whose metadata names it.
  entry->mutable_metadata()->mutable_plugin_data()->set_plugin_name("text");
  pb::TensorProto* tensor = entry->mutable_tensor();
  tensor->set_dtype(pb::DT_STRING);
  tensor->mutable_tensor_shape()->add_dim()->set_size(1);
  tensor->add_string_val(markdown);
  write_event(event.SerializeAsString());
}

void EventWriter::image(const std::string& tag, int64_t step, const EncodedImage& image) {
  pb::Event event = event_at(step);
  pb::Summary::Value* entry = event.mutable_summary()->add_value();
  entry->set_tag(tag);
  pb::Summary::Image* summary = entry->mutable_image();
  summary->set_height(image.height);
  summary->set_width(image.width);
  summary->set_colorspace(image.channels);
  summary->set_encoded_image_string(image.png);
  write_event(event.SerializeAsString());
}

void EventWriter::restart(int64_t step) {
  pb::Event event = event_at(step);
  event.mutable_session_log()->set_status(pb::SessionLog::START);
  write_event(event.SerializeAsString());
}

}  // namespace trainer
