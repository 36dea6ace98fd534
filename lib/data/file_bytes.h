#pragma once
#include <string>

namespace trainer {

// The whole file; throws DataError naming the path when it cannot be read.
std::string read_file_bytes(const std::string& path);

// The file's content, gunzipped when it is gzip'd. A truncated or corrupt
// gzip stream is a DataError, never a short read.
std::string read_maybe_gzip(const std::string& path);

}  // namespace trainer
