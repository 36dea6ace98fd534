#pragma once
// Which type a run's forward pass takes on its device, once the model is
// known. On a GPU, half precision pays where the products by the weights
// are big enough for the tensor cores' speed to outweigh what autocast
// adds: a cast of every weight each forward, and of its gradient back to
// fp32. On a model whose step is a few hundred kernels of a few microseconds
// each, those casts are more kernels and the step is slower: measured on an
// H200 (docs/performance.md), the Reuters Conv1D step (53 M forward
// multiply-adds, batch 32) and the Fashion-MNIST CNN's (236 M, batch 100)
// ran 4-10 % slower in bf16 than in fp32, eager and graphed, where the
// deblurring generator's (397 G, batch 8) ran 1.4x faster.
//
// On a CPU, bf16 pays where the CPU computes it (AVX-512-BF16 or AMX):
// measured 1.2-2.0x fp32's speed on both small reference models on 2 such
// cores. Elsewhere LibTorch emulates it, and the same steps ran about 9x
// slower than fp32, at the same accuracy (docs/performance.md).
//
// So where the config leaves the type to trainer (mixed_precision: true,
// precision: fp32), a GPU run of a model under kHalfPrecisionPaysFrom, and a
// run on a CPU that emulates bf16, keep fp32 and say why. An explicit
// precision: bf16 or fp16 is kept as asked, with a note that fp32 may be
// faster.
#include <cstdint>
#include <string>

#include <torch/torch.h>

#include "device/cpu_info.h"
#include "models/model.h"
#include "spec/experiment_config.h"

namespace trainer {

// Forward multiply-adds a step (a sample's times the batch) below which a
// GPU keeps fp32 for mixed_precision: true. The two models measured slower
// in half precision lie at 53 M and 236 M, the one measured faster at
// 397 G; models between them were not measured, and the line is drawn at
// 1 G, four times above the larger of the slow ones.
constexpr int64_t kHalfPrecisionPaysFrom = 1'000'000'000;

// This machine's CPU's bf16 (device/cpu_info.h), read once.
CpuBf16 this_cpu_bf16();

struct PrecisionChoice {
  torch::ScalarType autocast = torch::kFloat32;  // kFloat32: no autocast
  // For the run's log where the model's size or the CPU decided or may
  // matter; "" else.
  std::string note;
};

// By precision and mixed_precision on a GPU or a CPU whose bf16 is `cpu`,
// for a model whose forward pass is `multiply_adds_per_sample`
// (Model::forward_multiply_adds) at `batch_size` samples a step.
PrecisionChoice choose_precision(const ExperimentConfig& config, bool gpu, int64_t multiply_adds_per_sample,
                                 int64_t batch_size, CpuBf16 cpu = CpuBf16::kNative);

inline PrecisionChoice choose_precision(const ExperimentConfig& config, const torch::Device& device,
                                        const Model& model) {
  return choose_precision(config, device.is_cuda(), model.forward_multiply_adds(), config.train.batch_size.value,
                          device.is_cuda() ? CpuBf16::kNative : this_cpu_bf16());
}

}  // namespace trainer
