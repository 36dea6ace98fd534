#pragma once
// This process's place in a run: the communicator (a trivial one for a
// single process), the heartbeat, and the orderly start and end that keep
// ranks from waiting on each other forever.
#include <memory>
#include <optional>
#include <string>

#include "distributed/communicator.h"
#include "distributed/heartbeat.h"
#include "distributed/launch_env.h"
#include "spec/experiment_config.h"

namespace trainer {

class Cluster {
 public:
  // Single process when `launch` is empty; otherwise joins the other ranks
  // (c10d rendezvous, preflight all-reduce) and starts the heartbeat.
  // `devices` (the config's) decides Gloo or NCCL. Throws DistributedError.
  Cluster(const std::optional<LaunchInfo>& launch, const DistConfig& config, const std::vector<std::string>& devices);
  ~Cluster();

  Communicator& communicator() { return *communicator_; }
  const Communicator& communicator() const { return *communicator_; }
  int rank() const { return communicator_->rank(); }
  int world_size() const { return communicator_->world_size(); }
  bool is_root() const { return rank() == 0; }
  bool distributed() const { return world_size() > 1; }
  const LaunchInfo& launch() const { return launch_; }
  // Why a GPU run's collectives do not use NCCL; empty otherwise.
  const std::string& backend_note() const { return backend_note_; }

  void set_phase(Phase phase, int64_t epoch = 0, int64_t step = 0) {
    if (heartbeat_) heartbeat_->set_phase(phase, epoch, step);
  }
  // Throws DistributedError when a peer was found silent or failed.
  void check() const {
    if (heartbeat_) heartbeat_->check();
  }
  // Tells the peers this rank is failing, and why.
  void mark_failed(const std::string& reason) {
    if (heartbeat_) heartbeat_->mark_failed(reason);
  }
  // Throws DistributedError naming the first rank whose `what` differs from
  // rank 0's (configs, data sizes): mismatched ranks fail at start, not later.
  void require_same(const std::string& what, const std::string& value);
  // The end of a successful run: every rank stops its heartbeat before any
  // leaves (rank 0's exit takes the store with it).
  void finish();

 private:
  LaunchInfo launch_;
  std::string backend_note_;
  std::unique_ptr<Communicator> communicator_;
  std::unique_ptr<Heartbeat> heartbeat_;
};

}  // namespace trainer
