#pragma once
// Replaces each instance norm that is followed by a ReLU, a dropout and/or a
// reflection padding (in that order, each read by the next alone) with one
// fused module (fused/norm_chain.h): the DeblurGAN generator's norms, for
// one; in a channels-last model every instance norm. The layers it absorbs become identities; the norm's parameters keep
// their names, so checkpoints and summaries are unchanged.
#include <torch/torch.h>

#include "fused/norm_chain.h"
#include "fused/reflection_pad.h"
#include "models/layers.h"
#include "models/model.h"

namespace trainer {

// An instance norm and the layers after it that it runs itself: fused on
// CUDA, and on the CPU only when asked (the tests' reference loops);
// elsewhere, and for inputs the kernels do not take, LibTorch's layers one
// after another, as before fusion.
struct FusedNormChainImpl : DeviceGroupNormImpl {
  FusedNormChainImpl(const torch::nn::GroupNormOptions& norm, const NormChainOptions& tail, bool cpu);
  torch::Tensor forward(const torch::Tensor& x);
  NormChainOptions chain;
  bool fuse_on_cpu;
  int64_t fused_passes = 0;  // forward passes that ran the fused kernels (the rest: LibTorch's layers)
};
TORCH_MODULE(FusedNormChain);

// A reflection padding that keeps a channels-last input so
// (fused/reflection_pad.h), on CUDA, and on the CPU only when asked (the
// tests); elsewhere, and for inputs its kernels do not take, LibTorch's.
struct LayoutKeepingPadImpl : torch::nn::Module {
  LayoutKeepingPadImpl(const std::array<int64_t, 4>& sides, bool cpu) : pad(sides), pad_on_cpu(cpu) {}
  torch::Tensor forward(const torch::Tensor& x);
  std::array<int64_t, 4> pad;  // top, bottom, left, right
  bool pad_on_cpu;
  int64_t own_passes = 0;  // forward passes that ran trainer's kernels
};
TORCH_MODULE(LayoutKeepingPad);

// Replaces each reflection padding that no chain took with a
// LayoutKeepingPad; returns how many. For channels-last models, where
// LibTorch's CUDA padding returns NCHW.
int keep_layout_in_paddings(Model& model, bool pad_on_cpu = false);

// Fuses every chain of `model` it can; returns how many. Frozen layers are
// left as they are. `lone_norms`: norms that nothing follows into the chain
// are taken too (a channels-last model keeps its layout through them).
int fuse_norm_chains(Model& model, bool fuse_on_cpu = false, bool lone_norms = false);
// How many chains fuse_norm_chains would fuse, leaving the model as it is.
int fusible_norm_chains(const Model& model, bool lone_norms = false);

}  // namespace trainer
