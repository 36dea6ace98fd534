#include "util/atomic_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <regex>
#include <signal.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "util/error.h"
#include "util/read_file.h"

namespace trainer {
namespace {

std::string temp_name_for(const std::string& path) {
  return path + ".tmp." + std::to_string(getpid());
}

// "1.2 MiB free on its file system", or "" when it cannot be told.
std::string free_space_of(const std::string& path) {
  struct statvfs info {};
  std::string dir = std::filesystem::path(path).parent_path().string();
  if (dir.empty()) dir = ".";
  if (::statvfs(dir.c_str(), &info) != 0) return {};
  const double bytes = static_cast<double>(info.f_bavail) * static_cast<double>(info.f_frsize);
  char text[64];
  std::snprintf(text, sizeof text, "%.1f MiB free on its file system", bytes / (1024.0 * 1024.0));
  return text;
}

bool write_all(int fd, std::string_view content) {
  size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = ENOSPC;
      return false;
    }
    done += static_cast<size_t>(n);
  }
  return true;
}

void fsync_path(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

}  // namespace

void check_replaceable(const std::string& path) {
  struct stat info {};
  if (::lstat(path.c_str(), &info) != 0) return;  // nothing there yet (or a folder the write will name)
  if (S_ISREG(info.st_mode)) return;
  if (S_ISLNK(info.st_mode)) {
    std::error_code error;
    const auto target = std::filesystem::read_symlink(path, error);
    throw IoError(path + " is a symbolic link" + (error ? std::string() : " to " + target.string()) +
                      "; trainer does not replace links or write through them",
                  "name the file itself, or remove the link first");
  }
  throw IoError(path + " exists and is " + file_kind_text(info.st_mode) + "; trainer only replaces regular files",
                "name a new file or a regular one to replace");
}

void write_atomic_with(const std::string& path,
                       const std::function<void(const std::string&)>& write) {
  check_replaceable(path);
  const std::string tmp = temp_name_for(path);
  // A temporary of this name is a dead process's that had this PID: it may
  // be a hard link (link_or_copy_atomic) to a file the user keeps, which
  // truncating it would empty, so the name is freed first.
  ::unlink(tmp.c_str());
  try {
    write(tmp);
  } catch (...) {
    std::remove(tmp.c_str());
    throw;
  }
  fsync_path(tmp);
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string reason = std::strerror(errno);
    std::remove(tmp.c_str());
    throw IoError("cannot rename " + tmp + " to " + path + ": " + reason);
  }
  // rename(2) does nothing when both names are links to one file (a second
  // name given to what `path` already names): the temporary would stay.
  ::unlink(tmp.c_str());
  // Make the rename itself durable.
  fsync_path(std::filesystem::path(path).parent_path().string());
}

// The hint names the folder, not "the run directory": the same failure
// comes from a run's files and from what export, report and predict write
// wherever -o or --output points.
IoError write_failure(const std::string& path, int error) {
  const std::string space = free_space_of(path);
  std::string folder = std::filesystem::path(path).parent_path().string();
  if (folder.empty()) folder = ".";
  return IoError("cannot write " + path + ": " + std::strerror(error) + (space.empty() ? "" : " (" + space + ")"),
                 error == ENOSPC || error == EDQUOT
                     ? "free space on that file system, or write to another (a run: set log.dir there); files "
                       "already complete are intact"
                     : "check that " + folder + " exists and that this user may write there");
}

FileSink::FileSink(const std::string& tmp, std::string path) : path_(std::move(path)) {
  fd_ = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) throw write_failure(path_, errno);
}

FileSink::~FileSink() {
  if (fd_ >= 0) ::close(fd_);
}

void FileSink::write(std::string_view bytes) {
  if (error_ == 0 && !write_all(fd_, bytes)) error_ = errno;
}

void FileSink::close() {
  // Every step can report a full disk: the writes, the flush, the close.
  if (error_ == 0 && ::fsync(fd_) != 0) error_ = errno;
  if (::close(fd_) != 0 && error_ == 0) error_ = errno;
  fd_ = -1;
  if (error_ != 0) throw write_failure(path_, error_);
}

namespace {

// `content` into the temporary `tmp`, flushed to disk; failures name `path`.
void write_new_file(const std::string& tmp, const std::string& content, const std::string& path) {
  FileSink file(tmp, path);
  file.write(content);
  file.close();
}

}  // namespace

void write_file_atomic(const std::string& path, const std::string& content) {
  write_atomic_with(path, [&](const std::string& tmp) { write_new_file(tmp, content, path); });
}

void link_or_copy_atomic(const std::string& from, const std::string& to) {
  write_atomic_with(to, [&](const std::string& tmp) {
    if (::link(from.c_str(), tmp.c_str()) == 0) return;
    // Where links are refused (some network and FUSE file systems, a link
    // count at its limit) the bytes are copied; any other failure is the
    // copy's too (a missing source, a full directory), so the copy reports it.
    const FileRead bytes = read_regular_file(from);
    if (!bytes.ok()) throw IoError(from + " " + bytes.problem + "; it was to be copied to " + to);
    write_new_file(tmp, bytes.bytes, to);
  });
}

void append_to_file(const std::string& path, const std::string& text) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) throw write_failure(path, errno);
  struct stat before {};
  const bool sized = ::fstat(fd, &before) == 0;
  if (!write_all(fd, text)) {
    const int error = errno;
    // Cut the partial line off; if even that fails, the error below stands.
    if (sized && ::ftruncate(fd, before.st_size) != 0) errno = error;
    ::close(fd);
    throw write_failure(path, error);
  }
  if (::close(fd) != 0) throw write_failure(path, errno);
}

std::vector<std::string> remove_stale_temp_files(const std::string& dir) {
  static const std::regex ours(R"(.+\.tmp\.([0-9]{1,9}))");
  std::vector<std::string> removed;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(dir, error)) {
    std::smatch match;
    const std::string name = entry.path().filename().string();
    if (!entry.is_regular_file(error) || !std::regex_match(name, match, ours)) continue;
    const auto pid = static_cast<pid_t>(std::stol(match[1].str()));
    // ESRCH: no such process. EPERM means one exists (another user's).
    if (pid <= 0 || ::kill(pid, 0) == 0 || errno != ESRCH) continue;
    if (std::filesystem::remove(entry.path(), error)) removed.push_back(entry.path().string());
  }
  return removed;
}

}  // namespace trainer
