#pragma once
// Which c10d backend carries a rank's collectives, from the devices of its
// node. Torch-free, so the rule is tested without a GPU.
#include <string>
#include <vector>

namespace trainer {

struct BackendChoice {
  int cuda_device = -1;  // this rank's GPU, when NCCL is to carry its collectives
  std::string note;      // why it is not NCCL on a GPU run, for the log
};

// `devices`: the config's list (one entry for every rank, or one per local
// rank); `local_rank` picks this rank's. GPUs get NCCL, unless a GPU is listed
// twice on the node (NCCL refuses two ranks on one GPU: Gloo then, and the
// note says so) or this LibTorch has no NCCL. CPUs always use Gloo.
BackendChoice choose_backend(const std::vector<std::string>& devices, int local_rank, int local_world_size,
                             bool nccl_compiled);

}  // namespace trainer
