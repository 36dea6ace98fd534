#include "distributed/heartbeat.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "util/error.h"

namespace trainer {
namespace {

const char* const kPhaseNames[] = {"start-up",   "data",       "forward/backward", "all-reduce",
                                   "validation", "checkpoint", "finishing",        "failed"};

std::string key_of(int rank) { return "trainer/heartbeat/" + std::to_string(rank); }

}  // namespace

const char* phase_name(Phase phase) { return kPhaseNames[static_cast<int>(phase)]; }

Heartbeat::Heartbeat(std::unique_ptr<KeyValueStore> store, int rank, int world_size, double timeout_seconds)
    : store_(std::move(store)),
      rank_(rank),
      world_size_(world_size),
      timeout_(timeout_seconds),
      interval_(std::clamp(timeout_seconds / 10.0, 0.05, 1.0)),
      peers_(static_cast<size_t>(world_size), PeerView{"", Clock::now()}) {
  beat();
  thread_ = std::thread([this] { run(); });
}

Heartbeat::~Heartbeat() { stop(); }

void Heartbeat::set_phase(Phase phase, int64_t epoch, int64_t step) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (phase_ == Phase::kFailed) return;
  phase_ = phase;
  epoch_ = epoch;
  step_ = step;
}

void Heartbeat::check() const {
  if (!failed_.load(std::memory_order_relaxed)) return;
  std::lock_guard<std::mutex> lock(mutex_);
  throw DistributedError(failure_, "every rank's last steps are in the worklog.N files of the run directory");
}

void Heartbeat::mark_failed(const std::string& reason) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    phase_ = Phase::kFailed;
    failed_reason_ = reason.substr(0, 300);
    std::replace(failed_reason_.begin(), failed_reason_.end(), '\n', ';');
  }
  try {
    if (store_) store_->set(key_of(rank_), own_value());
  } catch (const std::exception&) {
    // The store may be what failed; peers then see the silence instead.
  }
}

void Heartbeat::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_) return;
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

std::string Heartbeat::own_value() const {
  std::ostringstream out;
  out << beats_ << ' ' << static_cast<int>(phase_) << ' ' << epoch_ << ' ' << step_;
  if (phase_ == Phase::kFailed) out << ' ' << failed_reason_;
  return out.str();
}

// "last seen in forward/backward (epoch 2, step 17)" from a published value.
std::string Heartbeat::describe_value(const std::string& value) {
  std::istringstream in(value);
  int64_t beats = 0, epoch = 0, step = 0;
  int phase = 0;
  if (!(in >> beats >> phase >> epoch >> step) || phase < 0 || phase > static_cast<int>(Phase::kFailed))
    return "never seen";
  std::string where = std::string("last seen in ") + phase_name(static_cast<Phase>(phase));
  if (epoch > 0) where += " (epoch " + std::to_string(epoch) + ", step " + std::to_string(step) + ")";
  if (static_cast<Phase>(phase) == Phase::kFailed) {
    std::string reason;
    std::getline(in >> std::ws, reason);
    where = "failed: " + reason;
  }
  return where;
}

void Heartbeat::beat() {
  std::string value;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++beats_;
    value = own_value();
  }
  store_->set(key_of(rank_), value);
}

void Heartbeat::watch_peers(Clock::time_point now) {
  for (int peer = 0; peer < world_size_; ++peer) {
    if (peer == rank_) continue;
    const std::string value = store_->get(key_of(peer)).value_or("");
    std::lock_guard<std::mutex> lock(mutex_);
    auto& view = peers_[static_cast<size_t>(peer)];
    if (value != view.last_value) view = {value, now};
    if (!failure_.empty()) continue;
    const std::string where = describe_value(view.last_value);
    if (where.rfind("failed: ", 0) == 0) {
      failure_ = "rank " + std::to_string(peer) + " " + where;
    } else if (now - view.last_change > timeout_ && where.find("finishing") == std::string::npos) {
      char seconds[32];
      std::snprintf(seconds, sizeof seconds, "%.1f", std::chrono::duration<double>(now - view.last_change).count());
      failure_ = "rank " + std::to_string(peer) + " stopped responding: no heartbeat for " + seconds +
                 " s (dist.timeout " + std::to_string(static_cast<int>(timeout_.count())) + " s); " + where;
    }
    if (!failure_.empty()) failed_ = true;
  }
}

void Heartbeat::run() {
  std::unique_lock<std::mutex> lock(mutex_);
  Clock::time_point store_ok = Clock::now();
  while (!wake_.wait_for(lock, interval_, [this] { return stopping_; })) {
    lock.unlock();
    const auto now = Clock::now();
    std::string lost;
    try {
      beat();
      watch_peers(now);
      store_ok = now;
    } catch (const std::exception& e) {
      lost = e.what();
    }
    lock.lock();
    // The store lives in rank 0's process (or the launcher's): losing it
    // for a few beats means that process is gone.
    if (!lost.empty() && failure_.empty() && now - store_ok > 3 * interval_) {
      failure_ = "lost the rendezvous store (served by rank 0 unless a launcher serves it): rank 0 is gone, " +
                 describe_value(peers_[0].last_value) + " (" + lost.substr(0, lost.find('\n')) + ")";
      failed_ = true;
    }
  }
}

std::string Heartbeat::explain() {
  // A rank killed a moment ago still has a fresh heartbeat; wait until the
  // silence is longer than a few beats.
  const auto settle = Clock::now() + 3 * interval_;
  while (Clock::now() < settle && !failed_) std::this_thread::sleep_for(interval_ / 2);
  std::lock_guard<std::mutex> lock(mutex_);
  const auto now = Clock::now();
  // The silent ranks first: a rank that failed only because it lost a peer
  // says so in its own message, the silent one cannot.
  std::string out;
  for (int peer = 0; peer < world_size_; ++peer) {
    if (peer == rank_) continue;
    const auto& view = peers_[static_cast<size_t>(peer)];
    const double silent = std::chrono::duration<double>(now - view.last_change).count();
    const std::string where = describe_value(view.last_value);
    if (silent < 2 * interval_.count() || where.rfind("failed: ", 0) == 0) continue;
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%.1f", silent);
    out += (out.empty() ? "" : "; ") + std::string("rank ") + std::to_string(peer) +
           " stopped responding: no heartbeat for " + seconds + " s, " + where;
  }
  if (!failure_.empty() && failure_.find("stopped responding") == std::string::npos)
    out += (out.empty() ? "" : "; ") + failure_;
  if (out.empty()) out = failure_;
  return out.empty() ? "every other rank was still sending heartbeats" : out;
}

}  // namespace trainer
