#pragma once
// What the LibTorch in use can do, where an experiment's validity depends on
// it. The command line records it at start (lib/device probes LibTorch);
// until then the abilities of the oldest supported LibTorch (1.13) apply.
// Torch-free, so that validation stays so.
namespace trainer {

struct PlatformSupport {
  bool cpu_fp16_autocast = false;  // fp16 autocast on CPUs (LibTorch 2.x), forward and backward
};

void set_platform_support(const PlatformSupport& support);
const PlatformSupport& platform_support();

}  // namespace trainer
