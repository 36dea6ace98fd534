// Device inventory and device selection.
#include <catch2/catch.hpp>

#include <filesystem>
#include <regex>

namespace fs = std::filesystem;

#include "cli_runner.h"
#include "experiment_files.h"
#include "device/blas.h"
#include "device/cpu_info.h"
#include "device/inventory_report.h"
#include "device/thread_budget.h"
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

TEST_CASE("bf16 is the CPU's own with AVX-512-BF16 or AMX, else LibTorch emulates it", "[device][precision]") {
  CHECK(cpu_bf16(parse_cpuinfo(kCpuinfo)) == CpuBf16::kNative);
  CHECK(cpu_bf16(parse_cpuinfo("processor : 0\nflags : avx2 fma avx512f avx512_bf16\n")) == CpuBf16::kNative);  // Zen 4
  CHECK(cpu_bf16(parse_cpuinfo("processor : 0\nflags : avx2 fma amx_bf16 amx_tile\n")) == CpuBf16::kNative);
  CHECK(cpu_bf16(parse_cpuinfo("processor : 0\nflags : sse4_2 avx avx2 fma avx512f avx512bw\n")) ==
        CpuBf16::kEmulated);
  // An Arm CPU's features, or no /proc/cpuinfo: trainer does not judge.
  CHECK(cpu_bf16(parse_cpuinfo("processor : 0\nFeatures : fp asimd sve bf16 i8mm\n")) == CpuBf16::kUnknown);
  CHECK(cpu_bf16(parse_cpuinfo("")) == CpuBf16::kUnknown);
  DeviceInventory inventory;
  inventory.cpu = parse_cpuinfo("processor : 0\nflags : avx2 fma\n");
  CHECK_THAT(format_inventory_text(inventory),
             Catch::Contains("bf16: emulated (no AVX-512-BF16): expect bf16 to be slower than fp32; "
                             "mixed_precision keeps fp32\n"));
  inventory.cpu = parse_cpuinfo("");
  CHECK_THAT(format_inventory_text(inventory), Catch::Contains("bf16: not known (no x86 flags in /proc/cpuinfo)\n"));
}

namespace {
ThreadLimits machine(int physical, int logical, int affinity = 0) {
  ThreadLimits limits;
  limits.physical_cores = physical;
  limits.logical_cores = logical;
  limits.affinity_cpus = affinity;
  return limits;
}
}  // namespace

TEST_CASE("default intra-op threads: usable physical cores split between a host's ranks", "[device]") {
  auto limits = machine(64, 128, 128);
  limits.ranks_on_host = 2;
  CHECK(choose_threads(limits).threads == 32);  // hyper-threads are not cores
  CHECK(choose_threads(limits).decided_by == "the machine's 64 physical cores, split between 2 ranks");
  CHECK(choose_threads(machine(64, 128, 16)).threads == 8);  // taskset -c 0-15: 8 cores
  CHECK_THAT(choose_threads(machine(64, 128, 16)).decided_by, Catch::StartsWith("the CPU affinity mask (16 logical"));
  limits = machine(8, 8, 8);
  limits.ranks_on_host = 3;
  CHECK(choose_threads(limits).threads == 2);
  limits = machine(2, 2, 2);
  limits.ranks_on_host = 4;
  CHECK(choose_threads(limits).threads == 1);  // never 0
  CHECK(choose_threads(machine(4, 4, 0)).threads == 4);  // affinity unknown
}

TEST_CASE("default intra-op threads: cgroup quota, SLURM_CPUS_PER_TASK and OMP_NUM_THREADS narrow them", "[device]") {
  auto limits = machine(16, 32, 32);
  limits.cgroup_cpus = 4.5;
  CHECK(choose_threads(limits).threads == 4);
  CHECK(choose_threads(limits).decided_by == "the cgroup CPU quota (4.5 CPUs)");
  limits.slurm_cpus_per_task = "6";
  CHECK(choose_threads(limits).threads == 4);  // the quota is still smaller
  limits.slurm_cpus_per_task = "3";
  CHECK(choose_threads(limits).decided_by == "SLURM_CPUS_PER_TASK=3");
  limits.omp_num_threads = "1";
  CHECK(choose_threads(limits).threads == 1);
  CHECK(choose_threads(limits).decided_by == "OMP_NUM_THREADS=1");
  limits.omp_num_threads = "2,1";  // nested levels: the first is ours
  CHECK(choose_threads(limits).threads == 2);
  CHECK(choose_threads(limits).decided_by == "OMP_NUM_THREADS=2,1");
  // A tie goes to the earlier source; an OMP_NUM_THREADS above the others changes nothing.
  limits.omp_num_threads = "3";
  CHECK(choose_threads(limits).decided_by == "SLURM_CPUS_PER_TASK=3");
  limits.omp_num_threads = "64";
  CHECK(choose_threads(limits).threads == 3);
}

TEST_CASE("default intra-op threads: SLURM's count is per task, shared by the ranks a task starts", "[device]") {
  auto limits = machine(32, 32, 32);
  limits.slurm_cpus_per_task = "8";
  limits.ranks_on_host = 4;
  CHECK(choose_threads(limits).threads == 2);  // one task, a supervisor starting 4 ranks in it
  CHECK(choose_threads(limits).decided_by == "SLURM_CPUS_PER_TASK=8, split between 4 ranks");
  limits.rank_is_slurm_task = true;  // srun: each rank a task with 8 CPUs (its own affinity mask)
  limits.affinity_cpus = 8;
  limits.ranks_on_host = 1;
  CHECK(choose_threads(limits).threads == 8);
}

TEST_CASE("default intra-op threads: values not understood are ignored with a warning", "[device]") {
  auto limits = machine(4, 4, 4);
  limits.omp_num_threads = "lots";
  limits.slurm_cpus_per_task = "0";
  const ThreadChoice choice = choose_threads(limits);
  CHECK(choice.threads == 4);
  REQUIRE(choice.warnings.size() == 2);
  CHECK_THAT(choice.warnings[0], Catch::Contains("SLURM_CPUS_PER_TASK='0'"));
  CHECK_THAT(choice.warnings[1], Catch::Contains("OMP_NUM_THREADS='lots' is not a positive count"));
}

TEST_CASE("cgroup v2 cpu.max: quota over period, or unlimited", "[device]") {
  CHECK(cpus_of_cpu_max("200000 100000\n") == Approx(2.0));
  CHECK(cpus_of_cpu_max("150000 100000") == Approx(1.5));
  CHECK(cpus_of_cpu_max("max 100000\n") == 0);
  CHECK(cpus_of_cpu_max("") == 0);
  CHECK(cpus_of_cpu_max("garbage") == 0);
  CHECK(cpus_of_cpu_max("-5 100000") == 0);
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

TEST_CASE("the BLAS in use: a loaded OpenBLAS by its own words, else the MKL inside LibTorch", "[device]") {
  const std::string alone = blas_name(false);
  const std::string with_mkl = blas_name(true);
  CHECK_THAT(alone, !Catch::Contains("inside LibTorch"));
  if (alone.rfind("OpenBLAS", 0) == 0)
    CHECK(with_mkl == alone);  // a BLAS that names itself is the one LibTorch calls
  else
    CHECK_THAT(with_mkl, Catch::StartsWith("MKL"));
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

