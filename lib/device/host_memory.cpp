#include "device/host_memory.h"

#include <algorithm>
#include <sstream>

#include "util/read_file.h"

namespace trainer {
namespace {

std::string read_small_file(const std::string& path) { return read_text_file(path, 1 << 20).value_or(""); }

std::optional<int64_t> parse_bytes(const std::string& text) {
  std::istringstream in(text);
  int64_t value = 0;
  if (!(in >> value) || value < 0) return std::nullopt;
  return value;
}

// The cgroup v2 folder of this process ("0::/PATH" in /proc/self/cgroup).
std::string own_cgroup() {
  std::istringstream lines(read_small_file("/proc/self/cgroup"));
  for (std::string line; std::getline(lines, line);)
    if (line.rfind("0::", 0) == 0) return "/sys/fs/cgroup" + line.substr(3);
  return {};
}

}  // namespace

std::optional<int64_t> parse_mem_available(const std::string& meminfo) {
  std::istringstream lines(meminfo);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("MemAvailable:", 0) != 0) continue;
    std::istringstream fields(line.substr(13));
    int64_t kib = 0;
    std::string unit;
    if (fields >> kib >> unit && unit == "kB" && kib >= 0) return kib * 1024;
    return std::nullopt;
  }
  return std::nullopt;
}

std::optional<int64_t> cgroup_memory_left(const std::string& max, const std::string& current) {
  const std::optional<int64_t> limit = parse_bytes(max), used = parse_bytes(current);
  if (!limit || !used) return std::nullopt;  // "max": no limit
  return std::max<int64_t>(0, *limit - *used);
}

std::optional<int64_t> available_host_memory() {
  std::optional<int64_t> available = parse_mem_available(read_small_file("/proc/meminfo"));
  const std::string cgroup = own_cgroup();
  if (!cgroup.empty()) {
    const std::optional<int64_t> left =
        cgroup_memory_left(read_small_file(cgroup + "/memory.max"), read_small_file(cgroup + "/memory.current"));
    if (left) available = available ? std::min(*available, *left) : *left;
  }
  return available;
}

}  // namespace trainer
