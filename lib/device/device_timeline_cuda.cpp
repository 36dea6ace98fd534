// DeviceTimeline (device_timeline.h) for a CUDA LibTorch: one timing event
// per mark, recorded on the device's current stream.
#include "device/device_timeline.h"

#include <ATen/cuda/CUDAEvent.h>
#include <c10/cuda/CUDAStream.h>

#include <chrono>
#include <thread>

namespace trainer {

struct DeviceTimeline::Impl {
  torch::Device device;
  std::vector<std::unique_ptr<at::cuda::CUDAEvent>> events;
};

bool DeviceTimeline::available(const torch::Device& device) { return device.is_cuda(); }

DeviceTimeline::DeviceTimeline(const torch::Device& device)
    : impl_(std::make_unique<Impl>(Impl{device, {}})) {}

DeviceTimeline::~DeviceTimeline() = default;

void DeviceTimeline::mark() {
  // cudaEventDefault: timing on (LibTorch's events default to without).
  auto event = std::make_unique<at::cuda::CUDAEvent>(cudaEventDefault);
  event->record(c10::cuda::getCurrentCUDAStream(impl_->device.index()));
  impl_->events.push_back(std::move(event));
}

std::vector<double> DeviceTimeline::take_intervals() {
  auto& events = impl_->events;
  std::vector<double> seconds;
  if (!events.empty()) {
    while (!events.back()->query()) std::this_thread::sleep_for(std::chrono::microseconds(20));
    for (size_t i = 1; i < events.size(); ++i)
      seconds.push_back(static_cast<double>(events[i - 1]->elapsed_time(*events[i])) / 1000.0);
  }
  events.clear();
  return seconds;
}

}  // namespace trainer
