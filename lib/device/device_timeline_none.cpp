// DeviceTimeline (device_timeline.h) for a LibTorch without CUDA: nothing to
// time; callers check available() first.
#include "device/device_timeline.h"

#include <stdexcept>

namespace trainer {

struct DeviceTimeline::Impl {};

bool DeviceTimeline::available(const torch::Device&) { return false; }

DeviceTimeline::DeviceTimeline(const torch::Device&) : impl_(std::make_unique<Impl>()) {}

DeviceTimeline::~DeviceTimeline() = default;

void DeviceTimeline::mark() { throw std::logic_error("DeviceTimeline: this build has no CUDA"); }

std::vector<double> DeviceTimeline::take_intervals() { return {}; }

}  // namespace trainer
