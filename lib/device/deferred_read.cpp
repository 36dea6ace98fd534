#include "device/deferred_read.h"

#include <c10/core/impl/VirtualGuardImpl.h>

#include <chrono>
#include <thread>

namespace trainer {

void DeferredRead::start(const torch::Tensor& values) {
  const torch::Tensor source = values.detach().to(torch::kFloat64);
  landed_.reset();
  if (!source.is_cuda()) {
    host_ = source.clone();
    return;
  }
  host_ = torch::empty(source.sizes(), torch::TensorOptions().dtype(torch::kFloat64).pinned_memory(true));
  host_.copy_(source, /*non_blocking=*/true);
  landed_.emplace(c10::DeviceType::CUDA);
  landed_->record(c10::impl::VirtualGuardImpl(c10::DeviceType::CUDA).getStream(source.device()));
}

bool DeferredRead::ready() const { return pending() && (!landed_ || landed_->query()); }

torch::Tensor DeferredRead::take() {
  // The copy was queued steps ago: by now it has almost always landed, and
  // polling the event (LibTorch 1.13's generic event cannot be waited on)
  // costs nothing then.
  while (landed_ && !landed_->query()) std::this_thread::sleep_for(std::chrono::microseconds(20));
  landed_.reset();
  torch::Tensor values = std::move(host_);
  host_ = torch::Tensor();
  return values;
}

}  // namespace trainer
