#pragma once
// Which device entry a rank trains on.
#include <string>
#include <vector>

namespace trainer {

// The device entry of a node's `local_rank`: a single entry serves every
// rank, otherwise one entry per local rank. `entries` is not empty.
inline const std::string& device_of_local_rank(const std::vector<std::string>& entries, int local_rank) {
  return entries.size() == 1 ? entries.front() : entries[static_cast<size_t>(local_rank) % entries.size()];
}

}  // namespace trainer
