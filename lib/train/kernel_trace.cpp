#include "train/kernel_trace.h"

#include <cstdio>
#include <set>
#include <stdexcept>

#include <torch/version.h>
#if TORCH_VERSION_MAJOR >= 2
#include <torch/csrc/autograd/profiler_kineto.h>
#endif

namespace trainer {

#if TORCH_VERSION_MAJOR >= 2

namespace {
namespace kineto = torch::autograd::profiler;
using torch::profiler::impl::ActivityType;
using torch::profiler::impl::ProfilerConfig;
using torch::profiler::impl::ProfilerState;

ProfilerConfig kineto_config() { return ProfilerConfig(ProfilerState::KINETO); }
const std::set<ActivityType> kActivities{ActivityType::CPU, ActivityType::CUDA};
}  // namespace

std::unique_ptr<KernelTrace> KernelTrace::start(const torch::Device& device, std::string& why) {
  if (!device.is_cuda()) {
    why = "not a GPU";
    return nullptr;
  }
  // A LibTorch built without Kineto refuses here (whether it has Kineto is
  // a macro of its own build, not of ours).
  try {
    kineto::prepareProfiler(kineto_config(), kActivities);
    kineto::enableProfiler(kineto_config(), kActivities);
  } catch (const std::exception& error) {
    why = error.what();
    return nullptr;
  }
  std::unique_ptr<KernelTrace> trace(new KernelTrace());
  trace->recording_ = true;
  return trace;
}

KernelTrace::~KernelTrace() {
  if (recording_) kineto::disableProfiler();
}

void KernelTrace::save(const std::string& path) {
  recording_ = false;
  // The kernels still queued belong to the recorded steps.
  torch::cuda::synchronize();
  const std::unique_ptr<kineto::ProfilerResult> result = kineto::disableProfiler();
  const std::string temporary = path + ".tmp";
  result->save(temporary);
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    std::remove(temporary.c_str());
    throw std::runtime_error("cannot write the profile " + path);
  }
}

#else

std::unique_ptr<KernelTrace> KernelTrace::start(const torch::Device&, std::string& why) {
  why = "LibTorch " TORCH_VERSION " has no Kineto profiler in its C++ API (2.x has)";
  return nullptr;
}
KernelTrace::~KernelTrace() = default;
void KernelTrace::save(const std::string&) {}

#endif

}  // namespace trainer
