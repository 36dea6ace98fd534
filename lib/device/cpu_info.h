#pragma once
// What the CPU is, from /proc/cpuinfo: model, cores, the instruction sets
// that decide which kernels LibTorch can use (AVX2, AVX-512, AVX-512-BF16,
// AMX), and a theoretical fp32 peak where it can be estimated. Torch-free.
#include <optional>
#include <string>
#include <vector>

namespace trainer {

struct CpuInfo {
  std::string model;
  int logical_cores = 0;
  int physical_cores = 0;
  double mhz = 0;                 // as reported (current, or nominal in a VM)
  std::vector<std::string> isa;   // of interest, in order: sse4_2 avx avx2 fma avx512f avx512_bf16 amx_bf16 ...
  bool has(const std::string& flag) const;
};

// A CPU's bf16: computed by the CPU (AVX-512-BF16 or AMX), where LibTorch's
// oneDNN runs bf16 products in hardware; emulated by LibTorch, where an
// autocast step is several times slower than fp32 (docs/performance.md,
// 'Mixed precision'); or not known (no x86 flags read: /proc/cpuinfo
// unreadable, or another architecture, whose bf16 trainer does not judge).
enum class CpuBf16 { kNative, kEmulated, kUnknown };
CpuBf16 cpu_bf16(const CpuInfo& cpu);

// Parses the text of /proc/cpuinfo.
CpuInfo parse_cpuinfo(const std::string& text);
// This machine's (logical cores from the scheduler when /proc is absent).
CpuInfo read_cpu_info();

// fp32 FLOP/s of all physical cores at `mhz`, assuming two FMA units per
// core of the widest vector unit (AVX-512: 64 FLOP/cycle, AVX2+FMA: 32,
// AVX: 16): an upper bound, for the "achieved fraction" of benchmarks.
// Nothing when the frequency is unknown.
struct PeakEstimate {
  double gflops = 0;
  std::string basis;  // how it was computed, for the output
};
std::optional<PeakEstimate> fp32_peak(const CpuInfo& cpu);

}  // namespace trainer
