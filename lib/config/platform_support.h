#pragma once
// What the LibTorch in use can do, where an experiment's validity depends on
// it. The command line registers probes at start (lib/device asks LibTorch);
// a probe runs once, when validation first needs its answer, so commands
// that never validate such a setting never run it. Without a probe the
// abilities of the oldest supported LibTorch (1.13) apply. Torch-free, so
// that validation stays so.
#include <functional>

namespace trainer {

struct PlatformProbes {
  std::function<bool()> cpu_fp16_autocast;  // fp16 autocast on CPUs (LibTorch 2.x), forward and backward
};

void set_platform_probes(PlatformProbes probes);

bool cpu_fp16_autocast_supported();

}  // namespace trainer
