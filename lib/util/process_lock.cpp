#include "util/process_lock.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <string>
#include <utility>

#include "util/error.h"
#include "util/text.h"

namespace trainer {
namespace {

// What the holder wrote: "pid 1234 on host gpu07", at most a line.
std::string holder_of(int fd) {
  char text[256] = {};
  const ssize_t n = ::pread(fd, text, sizeof text - 1, 0);
  std::string holder = n > 0 ? std::string(text, static_cast<size_t>(n)) : std::string();
  if (const size_t end = holder.find('\n'); end != std::string::npos) holder.resize(end);
  return holder.empty() ? "another process" : printable(holder);
}

}  // namespace

ProcessLock::ProcessLock(ProcessLock&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}

ProcessLock& ProcessLock::operator=(ProcessLock&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

ProcessLock::~ProcessLock() {
  if (fd_ >= 0) ::close(fd_);  // closing the last descriptor releases the flock
}

ProcessLock ProcessLock::take(const std::string& path, const std::string& what) {
  // Not inherited by the processes trainer starts (ranks, children of a
  // sweep): each takes what it needs itself.
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0) throw IoError("cannot open the lock file " + path + ": " + std::strerror(errno));
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int error = errno;
    const std::string holder = error == EWOULDBLOCK ? holder_of(fd) : std::string();
    ::close(fd);
    if (error != EWOULDBLOCK) throw IoError("cannot lock " + path + ": " + std::strerror(error));
    throw UsageError(what + " is in use by " + holder + " (it holds " + path + ")",
                     "wait for that process to end, or stop it (kill -INT saves a checkpoint first); "
                     "two processes writing one run would interleave its records and checkpoints");
  }
  const std::string holder = "pid " + std::to_string(::getpid()) + " on host " + (host_name().empty() ? "?" : host_name()) + "\n";
  // Who holds it, for the next process to name; the lock holds without it.
  if (::ftruncate(fd, 0) == 0) {
    const ssize_t written = ::pwrite(fd, holder.data(), holder.size(), 0);
    (void)written;
  }
  return ProcessLock(fd);
}

}  // namespace trainer
