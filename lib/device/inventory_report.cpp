// The text and JSON forms of `trainer devices`. Torch-free.
#include <cstdio>

#include "device/inventory_report.h"
#include "util/text.h"

namespace trainer {
namespace {

std::string json_string(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) continue;
    out += c;
  }
  return out + "\"";
}

std::string join_isa(const CpuInfo& cpu) {
  std::string out;
  for (const auto& flag : cpu.isa) out += (out.empty() ? "" : " ") + flag;
  return out.empty() ? "none of interest" : out;
}

const char* yes_no(bool value) { return value ? "yes" : "no"; }

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
  out += std::string("         bf16: ") +
         (cpu.has("avx512_bf16") || cpu.has("amx_bf16") ? "native (AVX-512-BF16/AMX)"
                                                         : "emulated (no AVX-512-BF16): expect bf16 to be slower than fp32") +
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
  std::string isa;
  for (const auto& flag : cpu.isa) isa += (isa.empty() ? "" : ",") + json_string(flag);
  char mhz[32];
  std::snprintf(mhz, sizeof mhz, "%.1f", cpu.mhz);
  std::string out = "{\"cpu\":{\"model\":" + json_string(cpu.model) +
                    ",\"physical_cores\":" + std::to_string(cpu.physical_cores) +
                    ",\"logical_cores\":" + std::to_string(cpu.logical_cores) + ",\"mhz\":" + mhz + ",\"isa\":[" +
                    isa + "]},\"gpus\":[";
  for (size_t i = 0; i < inventory.gpus.size(); ++i) {
    const auto& gpu = inventory.gpus[i];
    out += std::string(i ? "," : "") + "{\"index\":" + std::to_string(gpu.index) + ",\"name\":" +
           json_string(gpu.name) + ",\"total_bytes\":" + std::to_string(gpu.total_bytes) +
           ",\"free_bytes\":" + std::to_string(gpu.free_bytes) + ",\"compute_capability\":\"" +
           std::to_string(gpu.major) + "." + std::to_string(gpu.minor) + "\"}";
  }
  out += "],\"build\":{\"libtorch\":" + json_string(build.torch_version) + ",\"cuda\":" +
         (build.cuda ? json_string(build.cuda_version) : "null") + ",\"cudnn\":" +
         (build.cudnn_version.empty() ? "null" : json_string(build.cudnn_version)) + ",\"nccl\":" +
         (build.nccl ? "true" : "false") + ",\"onednn\":" + (build.onednn ? "true" : "false") +
         ",\"mkl\":" + (build.mkl ? "true" : "false") + ",\"blas\":" + json_string(build.blas) +
         ",\"intra_op_threads\":" + std::to_string(build.intra_op_threads) +
         ",\"cpu_autocast\":" + (build.cpu_fp16_autocast ? "[\"bf16\",\"fp16\"]" : "[\"bf16\"]") + "}}\n";
  return out;
}

}  // namespace trainer
