#include "config/platform_support.h"

#include <optional>

namespace trainer {
namespace {
PlatformProbes probes;
std::optional<bool> cpu_fp16_answer;
}  // namespace

void set_platform_probes(PlatformProbes new_probes) {
  probes = std::move(new_probes);
  cpu_fp16_answer.reset();
}

bool cpu_fp16_autocast_supported() {
  if (!cpu_fp16_answer) cpu_fp16_answer = probes.cpu_fp16_autocast && probes.cpu_fp16_autocast();
  return *cpu_fp16_answer;
}

}  // namespace trainer
