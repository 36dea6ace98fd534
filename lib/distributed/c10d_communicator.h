#pragma once
// Connects this rank to the others through PyTorch's c10d: a TCPStore for
// rendezvous (hosted by rank 0 unless the launcher hosts it), a Gloo
// process group for collectives on CPU tensors and, in CUDA builds when asked,
// an NCCL group for CUDA tensors.
#include <memory>

#include "distributed/communicator.h"
#include "distributed/launch_env.h"

namespace trainer {

struct ConnectOptions {
  double connect_timeout_seconds = 60;     // rendezvous and the preflight all-reduce
  double collective_timeout_seconds = 300;  // every later collective
  // A CUDA device index: also build an NCCL group, which then carries every
  // collective on CUDA tensors (Gloo keeps the CPU ones). -1: Gloo only.
  int nccl_device = -1;
};

// Whether the LibTorch trainer was built against has NCCL (a CUDA build).
bool nccl_compiled_in();

// Joins the group and runs a preflight all-reduce, so that a wrong address,
// a port in use or a missing rank fails here, before any data is loaded.
// Throws DistributedError.
std::unique_ptr<Communicator> connect_c10d(const LaunchInfo& launch, const ConnectOptions& options);

}  // namespace trainer
