#include "device/device_inventory.h"

#include <torch/torch.h>

#include "device/autocast.h"
#include "device/blas.h"
#include "device/thread_budget.h"
#include "util/torch_compat.h"

namespace trainer {

DeviceInventory take_inventory() {
  DeviceInventory inventory;
  inventory.cpu = read_cpu_info();
  inventory.gpus = query_gpus();
  BuildInfo& build = inventory.build;
  build.torch_version = compat::torch_version();
  build.cuda = at::hasCUDA();
  build.cuda_version = cuda_runtime_version();
  build.cudnn_version = cudnn_version();
#ifdef USE_C10D_NCCL
  build.nccl = true;
#endif
  build.onednn = at::hasMKLDNN();
  build.mkl = at::hasMKL();
  build.blas = blas_name(build.mkl);
  build.cpu_fp16_autocast = cpu_autocast_supports_fp16();
  const ThreadChoice threads = choose_threads(read_thread_limits(1, false));
  build.intra_op_threads = threads.threads;
  build.intra_op_threads_decided_by = threads.decided_by;
  return inventory;
}

}  // namespace trainer
