#pragma once
// `trainer devices`: what this machine and this build can train on.
#include <string>
#include <vector>

#include "device/cpu_info.h"
#include "device/gpu.h"

namespace trainer {

struct BuildInfo {
  std::string torch_version;
  bool cuda = false;          // the LibTorch was built with CUDA
  std::string cuda_version;   // runtime, when CUDA
  std::string cudnn_version;
  bool nccl = false;
  bool onednn = false;        // oneDNN (MKL-DNN) kernels: convolutions, bf16 on CPU
  bool mkl = false;
  std::string blas;
  bool cpu_fp16_autocast = false;  // besides bf16
  int intra_op_threads = 0;   // trainer's default for one rank (cpu_threads: 0)
  std::string intra_op_threads_decided_by;  // thread_budget.h
};

struct DeviceInventory {
  CpuInfo cpu;
  std::vector<GpuInfo> gpus;
  BuildInfo build;
};

DeviceInventory take_inventory();

}  // namespace trainer
