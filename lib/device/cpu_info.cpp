#include "device/cpu_info.h"

#include <algorithm>
#include <cstdio>
#include <set>
#include <sstream>
#include <thread>

#include <sched.h>

#include "util/read_file.h"

namespace trainer {
namespace {

const char* const kInterestingFlags[] = {"sse4_2",      "avx",         "avx2",     "fma",      "f16c",
                                         "avx512f",     "avx512bw",    "avx512vl", "avx512_vnni",
                                         "avx512_bf16", "avx512_fp16", "amx_bf16", "amx_tile"};

std::string trim(const std::string& s) {
  const size_t begin = s.find_first_not_of(" \t");
  const size_t end = s.find_last_not_of(" \t");
  return begin == std::string::npos ? "" : s.substr(begin, end - begin + 1);
}

}  // namespace

bool CpuInfo::has(const std::string& flag) const { return std::find(isa.begin(), isa.end(), flag) != isa.end(); }

CpuBf16 cpu_bf16(const CpuInfo& cpu) {
  if (cpu.isa.empty()) return CpuBf16::kUnknown;
  return cpu.has("avx512_bf16") || cpu.has("amx_bf16") ? CpuBf16::kNative : CpuBf16::kEmulated;
}

CpuInfo parse_cpuinfo(const std::string& text) {
  CpuInfo info;
  std::set<std::pair<std::string, std::string>> cores;  // (physical id, core id)
  std::set<std::string> flags;
  std::string physical_id;
  int cores_per_socket = 0;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string key = trim(line.substr(0, colon));
    const std::string value = trim(line.substr(colon + 1));
    if (key == "processor") ++info.logical_cores;
    else if (key == "model name" && info.model.empty()) info.model = value;
    else if (key == "cpu MHz" && info.mhz == 0) info.mhz = std::atof(value.c_str());
    else if (key == "physical id") physical_id = value;
    else if (key == "core id") cores.insert({physical_id, value});
    else if (key == "cpu cores") cores_per_socket = std::atoi(value.c_str());
    else if (key == "flags" && flags.empty()) {
      std::istringstream words(value);
      for (std::string word; words >> word;) flags.insert(word);
    }
  }
  for (const char* flag : kInterestingFlags)
    if (flags.count(flag)) info.isa.push_back(flag);
  info.physical_cores = !cores.empty() ? static_cast<int>(cores.size())
                                       : (cores_per_socket > 0 ? cores_per_socket : info.logical_cores);
  return info;
}

CpuInfo read_cpu_info() {
  CpuInfo info = parse_cpuinfo(read_text_file("/proc/cpuinfo").value_or(""));
  if (info.logical_cores == 0) info.logical_cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (info.physical_cores == 0) info.physical_cores = info.logical_cores;
  return info;
}

std::optional<PeakEstimate> fp32_peak(const CpuInfo& cpu) {
  if (cpu.mhz <= 0 || cpu.physical_cores <= 0) return std::nullopt;
  int flops_per_cycle = 8;  // SSE: 4 lanes, multiply and add
  std::string unit = "SSE";
  if (cpu.has("avx512f")) flops_per_cycle = 64, unit = "AVX-512 FMA";
  else if (cpu.has("avx2") && cpu.has("fma")) flops_per_cycle = 32, unit = "AVX2 FMA";
  else if (cpu.has("avx")) flops_per_cycle = 16, unit = "AVX";
  PeakEstimate peak;
  peak.gflops = cpu.physical_cores * cpu.mhz / 1000.0 * flops_per_cycle;
  char basis[160];
  std::snprintf(basis, sizeof basis, "%d cores x %.2f GHz x %d FLOP/cycle (%s, assuming 2 units per core)",
                cpu.physical_cores, cpu.mhz / 1000.0, flops_per_cycle, unit.c_str());
  peak.basis = basis;
  return peak;
}

}  // namespace trainer
