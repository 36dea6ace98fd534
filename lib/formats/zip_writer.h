#pragma once
// Writes ZIP archives in memory: the container of numpy's .npz files. Stored
// (uncompressed) members dated 1980-01-01, so that the same members give the
// same bytes whatever the clock says. Without ZIP64: over 4 GiB or 65,535
// members is refused (std::length_error).
#include <string>
#include <utility>
#include <vector>

namespace trainer {

// name -> content, in the order given.
using ZipMembers = std::vector<std::pair<std::string, std::string>>;

std::string stored_zip_bytes(const ZipMembers& members);

}  // namespace trainer
