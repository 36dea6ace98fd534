// Device inventory and device selection.
#include <catch2/catch.hpp>

#include <filesystem>
#include <regex>

namespace fs = std::filesystem;

#include "cli_runner.h"
#include "experiment_files.h"
#include "device/cpu_info.h"
#include "device/device_list.h"
#include "util/error.h"

using namespace trainer;
using namespace trainer::testing;

namespace {

const char* const kCpuinfo = R"(processor	: 0
vendor_id	: GenuineIntel
model name	: Intel(R) Xeon(R) Platinum 8480+
cpu MHz		: 2000.000
physical id	: 0
core id		: 0
cpu cores	: 2
flags		: fpu sse4_2 avx avx2 fma avx512f avx512_bf16 amx_bf16 amx_tile

processor	: 1
model name	: Intel(R) Xeon(R) Platinum 8480+
cpu MHz		: 2000.000
physical id	: 0
core id		: 1
flags		: fpu sse4_2 avx avx2 fma avx512f avx512_bf16 amx_bf16 amx_tile

processor	: 2
physical id	: 0
core id		: 0
flags		: fpu sse4_2 avx avx2 fma avx512f avx512_bf16 amx_bf16 amx_tile
)";

}  // namespace

TEST_CASE("/proc/cpuinfo gives model, cores and the instruction sets", "[device]") {
  const CpuInfo cpu = parse_cpuinfo(kCpuinfo);
  CHECK(cpu.model == "Intel(R) Xeon(R) Platinum 8480+");
  CHECK(cpu.logical_cores == 3);
  CHECK(cpu.physical_cores == 2);  // hyper-threads share a core id
  CHECK(cpu.mhz == 2000.0);
  CHECK(cpu.isa == std::vector<std::string>{"sse4_2", "avx", "avx2", "fma", "avx512f", "avx512_bf16", "amx_bf16",
                                            "amx_tile"});
  const auto peak = fp32_peak(cpu);
  REQUIRE(peak);
  CHECK(peak->gflops == Approx(2 * 2.0 * 64));
  CHECK_THAT(peak->basis, Catch::Contains("AVX-512 FMA"));
  CHECK_FALSE(fp32_peak(parse_cpuinfo("processor : 0\n")));
}

TEST_CASE("default intra-op threads: usable physical cores split between a host's ranks", "[device]") {
  CHECK(threads_per_rank(64, 128, 128, 2) == 32);  // hyper-threads are not cores
  CHECK(threads_per_rank(64, 128, 16, 1) == 8);    // taskset -c 0-15: 8 cores
  CHECK(threads_per_rank(8, 8, 8, 3) == 2);
  CHECK(threads_per_rank(2, 2, 2, 4) == 1);         // never 0
  CHECK(threads_per_rank(4, 4, 0, 1) == 4);         // affinity unknown
}

TEST_CASE("gpu:N maps to the physical GPU through CUDA_VISIBLE_DEVICES", "[device]") {
  CHECK(physical_gpu_id(nullptr, 2) == "2");
  CHECK(physical_gpu_id("2,3", 0) == "2");
  CHECK(physical_gpu_id("2,3", 1) == "3");
  CHECK(physical_gpu_id("GPU-8f2c, GPU-11ab", 1) == "GPU-11ab");
  CHECK(physical_gpu_id("0", 3) == "?");
}

TEST_CASE("a GPU that is not there fails before any work with exit code 5", "[device][e2e]") {
  const std::string dir = fresh_dir("device-missing-gpu");
  MlpExperiment spec;
  spec.run_name = "run";
  const std::string experiment = write_mlp_experiment(dir, spec);
  // gpu:99 exists on no machine: this holds with and without CUDA.
  for (const std::string devices : {"gpu:99", "gpu:0,99"}) {
    INFO(devices);
    const auto result = run_trainer({"run", experiment, "--devices", devices}, dir);
    CHECK(result.exit_code == 5);
    CHECK_THAT(result.err, Catch::Contains("gpu:99") &&
                               (Catch::Contains("does not exist") || Catch::Contains("this LibTorch has no CUDA")));
    CHECK_THAT(result.err, !Catch::Contains("starting 2 rank(s)") && !Catch::Contains("data:"));
    CHECK_FALSE(fs::exists(dir + "/runs"));
  }
  CHECK(run_trainer({"bench", experiment, "--set", "devices=gpu:99"}, dir).exit_code == 5);
}

TEST_CASE("without CUDA every GPU entry is refused, gpu:all included", "[device][e2e]") {
  const std::string dir = fresh_dir("device-no-cuda");
  if (run_trainer({"devices"}, dir).out.find("; CUDA no;") == std::string::npos) {
    WARN("SKIPPED: this LibTorch has CUDA");
    return;
  }
  MlpExperiment spec;
  spec.run_name = "run";
  const std::string experiment = write_mlp_experiment(dir, spec);
  for (const std::string devices : {"gpu:0", "gpu:all"}) {
    const auto result = run_trainer({"run", experiment, "--devices", devices}, dir);
    CHECK(result.exit_code == 5);
    CHECK_THAT(result.err, Catch::Contains(devices + " asked for, but this LibTorch has no CUDA"));
  }
}

TEST_CASE("trainer devices lists the CPU and the build, as text and JSON", "[device][e2e]") {
  const std::string dir = fresh_dir("devices");
  const auto text = run_trainer({"devices"}, dir);
  INFO(text.err);
  REQUIRE(text.exit_code == 0);
  CHECK_THAT(text.out, Catch::Contains("physical cores") && Catch::Contains("ISA:") && Catch::Contains("libtorch ") &&
                           Catch::Contains("BLAS:"));
  const auto json = run_trainer({"devices", "--json"}, dir);
  REQUIRE(json.exit_code == 0);
  CHECK_THAT(json.out, Catch::StartsWith("{\"cpu\":{\"model\":") && Catch::Contains("\"gpus\":[") &&
                           Catch::Contains("\"libtorch\":\""));
  CHECK(number_after(json.out, "logical_cores") >= 1);
  if (system_python_has("json")) {
    std::ofstream(dir + "/devices.json") << json.out;
    CHECK(std::system(("/usr/bin/python3 -c 'import json,sys; json.load(open(sys.argv[1]))' " + dir + "/devices.json")
                          .c_str()) == 0);
  }
}

