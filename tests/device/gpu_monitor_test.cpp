// NVML loaded at run time: a missing or unsuitable library and an unknown
// card leave the monitor off with the reason; with a library that has the
// functions (a stand-in here, tests/device/fake_nvml.cpp), samples are taken
// every interval and summed up per period.
#include <catch2/catch.hpp>

#include <chrono>
#include <thread>

#include "device/gpu_monitor.h"

using namespace trainer;

TEST_CASE("without NVML, or without the card, nothing is sampled and the reason is given", "[gpu_monitor]") {
  GpuMonitor missing("libnvidia-ml-not-here.so.1", "", 0);
  CHECK_FALSE(missing.available());
  CHECK(missing.why() == "libnvidia-ml-not-here.so.1 could not be loaded (no NVIDIA driver here?)");
  CHECK(missing.take().count == 0);
  GpuMonitor unsuitable("libz.so.1", "", 0);
  CHECK_FALSE(unsuitable.available());
  CHECK(unsuitable.why() == "libz.so.1 lacks the NVML functions needed");
  GpuMonitor other_card(TRAINER_FAKE_NVML, "0000:AA:00.0", 0);
  CHECK_FALSE(other_card.available());
  CHECK(other_card.why() == "NVML does not know the GPU 0000:AA:00.0");
  GpuMonitor other_index(TRAINER_FAKE_NVML, "", 3);
  CHECK(other_index.why() == "NVML does not know the GPU of index 3");
}

TEST_CASE("NVML samples: mean utilisation and peak memory per period", "[gpu_monitor]") {
  GpuMonitor monitor(TRAINER_FAKE_NVML, "0000:3B:00.0", 0, /*interval_seconds=*/0.01);
  REQUIRE(monitor.available());
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const GpuSamples first = monitor.take();
  CHECK(first.count >= 3);
  CHECK(first.mean_utilization == 50.0);
  CHECK(first.peak_memory_used_bytes == (first.count << 20));  // the stand-in's memory grows 1 MiB a sample
  // A period too short for a sample of its own gets one when it ends.
  const GpuSamples second = monitor.take();
  CHECK(second.count >= 1);
  CHECK(second.peak_memory_used_bytes > first.peak_memory_used_bytes);
  GpuMonitor by_index(TRAINER_FAKE_NVML, "", 0);
  CHECK(by_index.available());
}
