#pragma once
// One process at a time: an exclusive flock on a file. The kernel releases
// it when the process ends however it ends (kill -9 included), so a lock is
// never left stale; the file itself stays and says who held it last.
#include <string>

namespace trainer {

class ProcessLock {
 public:
  ProcessLock() = default;
  ProcessLock(ProcessLock&& other) noexcept;
  ProcessLock& operator=(ProcessLock&& other) noexcept;
  ProcessLock(const ProcessLock&) = delete;
  ProcessLock& operator=(const ProcessLock&) = delete;
  ~ProcessLock();

  // Takes the lock on `path` (created when absent) without waiting, and
  // writes this process's pid and host into it. When another process holds
  // it, throws UsageError naming `what`, the holder's pid and host, and how
  // to wait for it; IoError when the file cannot be made.
  static ProcessLock take(const std::string& path, const std::string& what);

  bool held() const { return fd_ >= 0; }

 private:
  explicit ProcessLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

}  // namespace trainer
