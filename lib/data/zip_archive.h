#pragma once
// Reads members of a ZIP archive held in memory: the container of numpy's
// .npz files. Stored and deflated members, with the zip64 extensions numpy
// writes (it forces zip64 on every member).
#include <map>
#include <string>

namespace trainer {

// Member name -> uncompressed content. `name` is used in error messages.
// Throws DataError on a truncated or corrupt archive.
std::map<std::string, std::string> read_zip_members(const std::string& bytes, const std::string& name);

}  // namespace trainer
