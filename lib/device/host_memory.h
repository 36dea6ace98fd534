#pragma once
// Memory this process can still take on the host, from the kernel: what
// /proc/meminfo calls MemAvailable (free memory plus caches the kernel can
// drop), and less where a control group (SLURM's, a container's) caps the
// job lower. Torch-free.
#include <cstdint>
#include <optional>
#include <string>

namespace trainer {

// MemAvailable of /proc/meminfo's text, in bytes; nothing when absent.
std::optional<int64_t> parse_mem_available(const std::string& meminfo);

// What is left under a cgroup v2 limit: `max` (memory.max: bytes or "max")
// less `current` (memory.current); nothing when unlimited or unreadable.
std::optional<int64_t> cgroup_memory_left(const std::string& max, const std::string& current);

// This machine's: the smaller of the two; nothing when neither is known.
std::optional<int64_t> available_host_memory();

}  // namespace trainer
