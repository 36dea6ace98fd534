#include "distributed/backend_choice.h"

#include <algorithm>

#include "distributed/rank_device.h"

namespace trainer {

BackendChoice choose_backend(const std::vector<std::string>& devices, int local_rank, int local_world_size,
                             bool nccl_compiled) {
  BackendChoice choice;
  if (devices.empty()) return choice;
  const std::string mine = device_of_local_rank(devices, local_rank);
  if (mine.rfind("gpu:", 0) != 0) return choice;
  const bool shared = devices.size() == 1 ? local_world_size > 1 : std::count(devices.begin(), devices.end(), mine) > 1;
  if (shared) {
    choice.note = mine + " is shared by several ranks of this node, which NCCL refuses: GPU tensors go through Gloo";
    return choice;
  }
  if (!nccl_compiled) {
    choice.note = "this LibTorch has no NCCL: GPU tensors go through Gloo";
    return choice;
  }
  choice.cuda_device = std::stoi(mine.substr(4));
  return choice;
}

}  // namespace trainer
