#pragma once
// Every rank publishes (phase, epoch, step) to the rendezvous store on a
// background thread and watches everyone else's. A rank that dies, is stopped
// or loses its machine goes silent; after dist.timeout the others stop with a
// message that names it and the phase it was last seen in, instead of hanging
// in a collective. Torch-free: it sees the store as a
// KeyValueStore.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "distributed/key_value_store.h"

namespace trainer {

enum class Phase { kStarting, kData, kCompute, kAllReduce, kValidation, kCheckpoint, kFinishing, kFailed };
const char* phase_name(Phase phase);

class Heartbeat {
 public:
  Heartbeat(std::unique_ptr<KeyValueStore> store, int rank, int world_size, double timeout_seconds);
  ~Heartbeat();
  Heartbeat(const Heartbeat&) = delete;
  Heartbeat& operator=(const Heartbeat&) = delete;

  // Cheap: the thread publishes it at its next beat.
  void set_phase(Phase phase, int64_t epoch = 0, int64_t step = 0);
  // Throws DistributedError once a peer was found silent or failed, or the
  // store was lost.
  void check() const;
  // After a collective failed: which ranks look gone and where they were last
  // seen. Waits a few beats for a dead rank's silence to show.
  std::string explain();
  // Publishes this rank's failure at once, so peers name it.
  void mark_failed(const std::string& reason);
  // Stops publishing and watching (an orderly end of the run).
  void stop();

  double interval_seconds() const { return interval_.count(); }

 private:
  using Clock = std::chrono::steady_clock;
  struct PeerView {
    std::string last_value;  // "beat phase epoch step"
    Clock::time_point last_change;
  };

  void run();
  void beat();
  void watch_peers(Clock::time_point now);
  std::string own_value() const;
  static std::string describe_value(const std::string& value);

  std::unique_ptr<KeyValueStore> store_;
  int rank_;
  int world_size_;
  std::chrono::duration<double> timeout_;
  std::chrono::duration<double> interval_;

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  Phase phase_ = Phase::kStarting;
  int64_t epoch_ = 0, step_ = 0, beats_ = 0;
  std::string failed_reason_;
  std::vector<PeerView> peers_;
  std::string failure_;  // set once: what check() throws
  std::atomic<bool> failed_{false};
  std::thread thread_;
};

}  // namespace trainer
