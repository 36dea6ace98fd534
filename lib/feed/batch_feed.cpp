#include "feed/batch_feed.h"

#include <c10/core/StreamGuard.h>
#include <c10/core/impl/VirtualGuardImpl.h>

#include "degrade/deferred_degradation.h"

namespace trainer {

bool held_on_device(const TensorDataset& data, const torch::Device& device) {
  return device.is_cuda() && !data.source && data.inputs.defined() && data.inputs.device() == device &&
         data.labels.device() == device;
}

BatchFeed::BatchFeed(const TensorDataset& data, std::vector<int64_t> order, LoaderOptions options,
                     const torch::Device& device)
    : data_(data), device_(device) {
  if (held_on_device(data, device)) {
    begins_ = batch_begins(static_cast<int64_t>(order.size()), options);
    batch_count_ = static_cast<int64_t>(begins_.size()) - 1;
    // Pinned, so that the one copy of the epoch does not wait for the GPU either.
    order_on_device_ = torch::from_blob(order.data(), {static_cast<int64_t>(order.size())}, torch::kInt64)
                           .pin_memory()
                           .to(device, /*non_blocking=*/true);
    return;
  }
  if (device.is_cuda()) {
    options.pin_memory = true;
    copy_stream_ = c10::impl::VirtualGuardImpl(device.type()).getStreamFromGlobalPool(device);
    if (DeviceTimeline::available(device)) idle_marks_ = std::make_unique<DeviceTimeline>(device);
  }
  loader_ = std::make_unique<BatchLoader>(data, std::move(order), options);
  batch_count_ = loader_->batch_count();
}

BatchFeed::~BatchFeed() = default;

namespace {

// A batch whose inputs the device makes (data.degrade.on_device) gets them,
// queued on the current stream.
std::optional<Batch> finished(std::optional<Batch> batch) {
  if (batch && batch->deferred) {
    batch->inputs = batch->deferred->finish();
    batch->deferred.reset();
  }
  return batch;
}

}  // namespace

std::optional<Batch> BatchFeed::next() {
  if (!loader_) return gather_on_device();
  if (!copy_stream_) return finished(loader_->next());
  if (started_ && !ahead_) return std::nullopt;
  // A mark left unpaired by an empty epoch is only ever the start of an
  // interval device_idle_seconds() does not count.
  if (idle_marks_) idle_marks_->mark();
  if (!started_) {
    started_ = true;
    ahead_ = stage(loader_->next());
  }
  if (!ahead_) return std::nullopt;
  Staged current = std::move(*ahead_);
  // The next batch's copy starts now, before this one's step is queued, so
  // that it runs beside that step.
  ahead_ = stage(loader_->next());
  const c10::Stream compute = c10::impl::VirtualGuardImpl(device_.type()).getStream(device_);
  current.copied.block(compute);
  // The batch is ready here; the on-device degradation below is the step's
  // own work on the GPU, not idle time.
  if (idle_marks_) idle_marks_->mark();
  // The memory was allocated on the copy stream: the caching allocator must
  // not hand it out again before the step's stream is done with it.
  if (current.batch.inputs.defined()) current.batch.inputs.record_stream(compute);
  current.batch.labels.record_stream(compute);
  if (current.batch.deferred)
    for (const torch::Tensor& tensor : current.batch.deferred->tensors()) tensor.record_stream(compute);
  return finished(std::move(current.batch));
}

std::optional<double> BatchFeed::device_idle_seconds() {
  if (!device_.is_cuda() || !DeviceTimeline::available(device_)) return std::nullopt;
  if (!idle_marks_) return 0.0;
  // Marks: begin, ready, begin, ready, ...: the even intervals are the calls.
  const std::vector<double> intervals = idle_marks_->take_intervals();
  double idle = 0;
  for (size_t i = 0; i < intervals.size(); i += 2) idle += intervals[i];
  return idle;
}

std::optional<BatchFeed::Staged> BatchFeed::stage(std::optional<Batch> host) {
  if (!host) return std::nullopt;
  c10::StreamGuard on_copy_stream(*copy_stream_);
  // From pinned memory the copy is queued, not waited for; the pinned
  // allocator keeps the host memory until the copy is done.
  Staged staged{{host->inputs.defined() ? host->inputs.to(device_, /*non_blocking=*/true) : host->inputs,
                 host->labels.to(device_, /*non_blocking=*/true),
                 host->deferred ? std::make_shared<const DeferredDegradation>(
                                      host->deferred->to(device_, /*non_blocking=*/true))
                                : nullptr},
                c10::Event(device_.type())};
  staged.copied.record(*copy_stream_);
  return staged;
}

std::optional<Batch> BatchFeed::gather_on_device() {
  if (next_batch_ >= batch_count_) return std::nullopt;
  const int64_t begin = begins_[static_cast<size_t>(next_batch_)];
  const int64_t end = begins_[static_cast<size_t>(next_batch_) + 1];
  ++next_batch_;
  const torch::Tensor rows = order_on_device_.slice(0, begin, end);
  return Batch{data_.inputs.index_select(0, rows), data_.labels.index_select(0, rows), nullptr};
}

}  // namespace trainer
