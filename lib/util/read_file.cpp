#include "util/read_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace trainer {
namespace {

struct OpenFile {
  int fd = -1;
  FileRead failure;
};

// Opens without blocking (a FIFO without a writer would wait forever) and
// refuses anything but a regular file.
OpenFile open_regular(const std::string& path) {
  OpenFile open;
  open.fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (open.fd < 0) {
    open.failure.missing = errno == ENOENT || errno == ENOTDIR;
    open.failure.problem = open.failure.missing ? "does not exist" : std::string("cannot be read: ") + std::strerror(errno);
    return open;
  }
  struct stat info {};
  if (::fstat(open.fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    open.failure.problem = "is " + file_kind_text(info.st_mode) + ", not a regular file";
    ::close(open.fd);
    open.fd = -1;
  }
  return open;
}

}  // namespace

std::string file_kind_text(unsigned mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISLNK(mode)) return "a symbolic link";
  return "not a plain file";
}

std::string byte_size_text(uint64_t bytes) {
  char text[64];
  if (bytes < 1024) {
    std::snprintf(text, sizeof text, "%llu bytes", static_cast<unsigned long long>(bytes));
  } else {
    const char* units[] = {"KiB", "MiB", "GiB", "TiB"};
    double value = static_cast<double>(bytes) / 1024.0;
    int unit = 0;
    while (value >= 1024.0 && unit < 3) {
      value /= 1024.0;
      ++unit;
    }
    std::snprintf(text, sizeof text, value == static_cast<double>(static_cast<uint64_t>(value)) ? "%.0f %s" : "%.1f %s",
                  value, units[unit]);
  }
  return text;
}

std::string regular_file_problem(const std::string& path) {
  OpenFile open = open_regular(path);
  if (open.fd >= 0) ::close(open.fd);
  return open.failure.problem;
}

FileRead read_regular_file(const std::string& path, uint64_t cap, const std::string& kind) {
  OpenFile open = open_regular(path);
  if (open.fd < 0) return open.failure;
  FileRead read;
  struct stat info {};
  // /proc and /sys files say 0 bytes and still hold text: read those to the end.
  if (::fstat(open.fd, &info) == 0 && info.st_size > 0 && static_cast<uint64_t>(info.st_size) <= cap)
    read.bytes.reserve(static_cast<size_t>(info.st_size));
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(open.fd, buffer, sizeof buffer);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n < 0) {
      read.problem = std::string("cannot be read: ") + std::strerror(errno);
      break;
    }
    if (n == 0) break;
    if (read.bytes.size() + static_cast<uint64_t>(n) > cap) {
      read.problem = "is larger than " + byte_size_text(cap) + ", the most a " + kind + " may hold";
      break;
    }
    read.bytes.append(buffer, static_cast<size_t>(n));
  }
  ::close(open.fd);
  if (!read.ok()) read.bytes.clear();
  return read;
}

std::optional<std::string> read_text_file(const std::string& path, uint64_t cap) {
  FileRead read = read_regular_file(path, cap);
  if (!read.ok()) return std::nullopt;
  return std::move(read.bytes);
}

}  // namespace trainer
