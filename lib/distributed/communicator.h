#pragma once
// The one interface the trainer sees for everything that crosses ranks
// (only c10d_communicator.cpp includes c10d). A single process uses SingleProcessCommunicator, where
// every collective is the identity; c10d_communicator.cpp implements it over
// PyTorch's c10d (Gloo for CPU tensors). Collectives throw DistributedError.
#include <torch/torch.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "distributed/key_value_store.h"

namespace trainer {

// A collective started in the background; wait() blocks until it is done.
class PendingCollective {
 public:
  virtual ~PendingCollective() = default;
  virtual void wait() = 0;
};

enum class ReduceOp { kSum, kMax, kMin };

class Communicator {
 public:
  virtual ~Communicator() = default;
  virtual int rank() const = 0;
  virtual int world_size() const = 0;
  // "gloo, 2 ranks, store 127.0.0.1:29500" for the log header.
  virtual std::string describe() const = 0;

  // In place across all ranks. Every rank must start the same collectives in
  // the same order.
  virtual std::unique_ptr<PendingCollective> all_reduce_async(torch::Tensor tensor, ReduceOp op) = 0;
  void all_reduce(torch::Tensor tensor, ReduceOp op = ReduceOp::kSum) { all_reduce_async(tensor, op)->wait(); }
  // Rank `root`'s values into every rank's tensors.
  virtual void broadcast(std::vector<torch::Tensor> tensors, int root) = 0;
  virtual void barrier() = 0;
  // Rank 0's `value` on every rank, through the store (the run directory,
  // the config's fingerprint). Other ranks' `value` is ignored.
  virtual std::string share_from_rank0(const std::string& key, const std::string& value) = 0;

  // A new connection to the rendezvous store, for use on another thread;
  // nothing for a single process.
  virtual std::unique_ptr<KeyValueStore> open_store() = 0;
  // Called when a collective fails, to add which rank is missing and where
  // it was last seen (the heartbeat knows).
  void set_failure_explainer(std::function<std::string()> explain) { explain_failure_ = std::move(explain); }

 protected:
  std::string explain_failure() const { return explain_failure_ ? explain_failure_() : std::string(); }

 private:
  std::function<std::string()> explain_failure_;
};

// The trivial implementation for one rank.
std::unique_ptr<Communicator> make_single_process_communicator();

}  // namespace trainer
