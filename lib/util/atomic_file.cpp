#include "util/atomic_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <regex>
#include <signal.h>
#include <unistd.h>

#include "util/error.h"

namespace trainer {
namespace {

std::string temp_name_for(const std::string& path) {
  return path + ".tmp." + std::to_string(getpid());
}

void fsync_path(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

}  // namespace

void write_atomic_with(const std::string& path,
                       const std::function<void(const std::string&)>& write) {
  const std::string tmp = temp_name_for(path);
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
  // Make the rename itself durable.
  fsync_path(std::filesystem::path(path).parent_path().string());
}

void write_file_atomic(const std::string& path, const std::string& content) {
  write_atomic_with(path, [&](const std::string& tmp) {
    std::FILE* file = std::fopen(tmp.c_str(), "wb");
    if (!file) throw IoError("cannot write " + tmp + ": " + std::strerror(errno));
    const size_t written = std::fwrite(content.data(), 1, content.size(), file);
    const bool ok = written == content.size() && std::fflush(file) == 0;
    std::fclose(file);
    if (!ok) throw IoError("cannot write " + tmp + ": " + std::strerror(errno));
  });
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
