#include <torch/torch.h>

#include "commands.h"
#include "util/torch_compat.h"

namespace trainer::app {

const char* version_number() { return TRAINER_VERSION; }

std::string version_text() {
  return std::string("trainer ") + TRAINER_VERSION + " (LibTorch " + compat::torch_version() + ", " +
         (torch::cuda::is_available() ? "CUDA available" : "CPU") + ")";
}

}  // namespace trainer::app
