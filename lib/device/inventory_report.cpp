// The text and JSON forms of `trainer devices`. Torch-free.
#include <cmath>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "device/inventory_report.h"
#include "util/json.h"
#include "util/text.h"

namespace trainer {
namespace {

std::string join_isa(const CpuInfo& cpu) {
  std::string out;
  for (const auto& flag : cpu.isa) out += (out.empty() ? "" : " ") + flag;
  return out.empty() ? "none of interest" : out;
}

const char* yes_no(bool value) { return value ? "yes" : "no"; }

// The JSON form's cpu.bf16.
const char* bf16_name(CpuBf16 bf16) {
  return bf16 == CpuBf16::kNative ? "native" : bf16 == CpuBf16::kEmulated ? "emulated" : "unknown";
}

}  // namespace

std::string format_inventory_text(const DeviceInventory& inventory) {
  const CpuInfo& cpu = inventory.cpu;
  const BuildInfo& build = inventory.build;
  char line[512];
  std::string out;
  std::snprintf(line, sizeof line, "cpu      %s: %d physical cores, %d logical, %.0f MHz\n", cpu.model.c_str(),
                cpu.physical_cores, cpu.logical_cores, cpu.mhz);
  out += line;
  out += "         ISA: " + join_isa(cpu) + "\n";
  const CpuBf16 bf16 = cpu_bf16(cpu);
  out += std::string("         bf16: ") +
         (bf16 == CpuBf16::kNative     ? "native (AVX-512-BF16/AMX)"
          : bf16 == CpuBf16::kEmulated ? "emulated (no AVX-512-BF16): expect bf16 to be slower than fp32; "
                                         "mixed_precision keeps fp32"
                                       : "not known (no x86 flags in /proc/cpuinfo)") +
         "\n";
  if (inventory.gpus.empty()) out += "gpu      none visible\n";
  for (const auto& gpu : inventory.gpus) {
    std::snprintf(line, sizeof line, "gpu:%-4d %s, %s total, %s free, compute capability %d.%d\n", gpu.index,
                  gpu.name.c_str(), format_mib(gpu.total_bytes).c_str(), format_mib(gpu.free_bytes).c_str(), gpu.major, gpu.minor);
    out += line;
  }
  out += "libtorch " + build.torch_version + "; CUDA " + (build.cuda ? build.cuda_version : std::string("no")) +
         "; cuDNN " + (build.cudnn_version.empty() ? std::string("no") : build.cudnn_version) + "; NCCL " +
         yes_no(build.nccl) + "; oneDNN " + yes_no(build.onednn) + "; MKL " + yes_no(build.mkl) + "\n";
  out += "         BLAS: " + build.blas + "; intra-op threads by default: " + std::to_string(build.intra_op_threads) +
         " (" + build.intra_op_threads_decided_by + "); CPU autocast: " + (build.cpu_fp16_autocast ? "bf16, fp16" : "bf16") + "\n";
  return out;
}

std::string format_inventory_json(const DeviceInventory& inventory) {
  const CpuInfo& cpu = inventory.cpu;
  const BuildInfo& build = inventory.build;
  nlohmann::ordered_json gpus = nlohmann::ordered_json::array();
  for (const auto& gpu : inventory.gpus)
    gpus.push_back({{"index", gpu.index},
                    {"name", gpu.name},
                    {"total_bytes", gpu.total_bytes},
                    {"free_bytes", gpu.free_bytes},
                    {"compute_capability", std::to_string(gpu.major) + "." + std::to_string(gpu.minor)}});
  nlohmann::ordered_json json;
  json["cpu"] = {{"model", cpu.model},
                 {"physical_cores", cpu.physical_cores},
                 {"logical_cores", cpu.logical_cores},
                 {"mhz", json_number(std::round(cpu.mhz * 10) / 10)},
                 {"isa", cpu.isa},
                 {"bf16", bf16_name(cpu_bf16(cpu))}};
  json["gpus"] = gpus;
  json["build"] = {{"libtorch", build.torch_version},
                   {"cuda", build.cuda ? nlohmann::ordered_json(build.cuda_version) : nullptr},
                   {"cudnn", build.cudnn_version.empty() ? nullptr : nlohmann::ordered_json(build.cudnn_version)},
                   {"nccl", build.nccl},
                   {"onednn", build.onednn},
                   {"mkl", build.mkl},
                   {"blas", build.blas},
                   {"intra_op_threads", build.intra_op_threads},
                   {"cpu_autocast", build.cpu_fp16_autocast ? std::vector<std::string>{"bf16", "fp16"}
                                                            : std::vector<std::string>{"bf16"}}};
  return json_line(json);
}

}  // namespace trainer
