// NCCL, on a machine with a GPU and a CUDA LibTorch; elsewhere it says why
// it skipped and passes. One rank: NCCL and Gloo groups side by side, each
// collective routed by the tensor's device.
#include <catch2/catch.hpp>

#include "distributed/c10d_communicator.h"
#include "distributed/supervisor.h"

using namespace trainer;

namespace {

// One rank, on a free port, asking for an NCCL group on GPU 0.
std::unique_ptr<Communicator> connect_one_rank_with_nccl() {
  LaunchInfo launch;
  launch.master_port = find_free_port();
  ConnectOptions options;
  options.connect_timeout_seconds = 30;
  options.collective_timeout_seconds = 30;
  options.nccl_device = 0;
  return connect_c10d(launch, options);
}

}  // namespace

TEST_CASE("NCCL carries CUDA tensors and Gloo CPU tensors", "[dist][gpu]") {
  if (!nccl_compiled_in()) {
    WARN("SKIPPED: this LibTorch has no NCCL (a CPU build)");
    return;
  }
  if (!torch::cuda::is_available()) {
    WARN("SKIPPED: no GPU");
    return;
  }
  const auto communicator = connect_one_rank_with_nccl();
  CHECK_THAT(communicator->describe(), Catch::StartsWith("gloo + nccl"));
  auto on_gpu = torch::arange(4, torch::dtype(torch::kFloat32).device(torch::kCUDA, 0));
  communicator->all_reduce(on_gpu);  // one rank: the sum is the tensor itself
  CHECK(torch::equal(on_gpu.cpu(), torch::arange(4, torch::kFloat32)));
  auto on_cpu = torch::arange(4, torch::kFloat32);
  communicator->all_reduce(on_cpu, ReduceOp::kMax);
  CHECK(torch::equal(on_cpu, torch::arange(4, torch::kFloat32)));
  communicator->broadcast({on_gpu, on_cpu}, 0);
  communicator->barrier();
}

TEST_CASE("asking for NCCL without it is a clear error", "[dist][gpu]") {
  if (nccl_compiled_in()) {
    WARN("SKIPPED: this LibTorch has NCCL");
    return;
  }
  CHECK_THROWS_WITH(connect_one_rank_with_nccl(), Catch::Contains("NCCL was asked for") && Catch::Contains("no CUDA"));
}
