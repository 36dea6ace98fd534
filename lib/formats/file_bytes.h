#pragma once
#include <cstdint>
#include <limits>
#include <string>

namespace trainer {

// The whole file; throws DataError naming the path when it cannot be read.
std::string read_file_bytes(const std::string& path);

// The file's content, gunzipped when it is gzip'd. A truncated or corrupt
// gzip stream is a DataError, never a short read. Decompression stops with
// a DataError as soon as the content passes `limit` bytes (what the file's
// own header promises, `limit_reason`): a small file that inflates to
// gigabytes is refused after `limit` bytes, not after the gigabytes.
std::string read_maybe_gzip(const std::string& path, uint64_t limit = std::numeric_limits<uint64_t>::max(),
                            const std::string& limit_reason = {});

// Throws DataError when `path`'s content cannot be `expected` bytes long
// (`described_by` says who claims it: "its IDX header"): a plain file's size
// must equal it; a gzip'd file's trailer gives the size modulo 4 GiB. Only
// the file's size and last bytes are read: a header claiming gigabytes is
// refused before anything that large is allocated.
void check_content_size(const std::string& path, uint64_t expected, const std::string& described_by);

// The first `count` bytes of the content (fewer when it is shorter), read
// the same way: enough to parse a header before deciding a limit.
std::string read_maybe_gzip_prefix(const std::string& path, uint64_t count);

}  // namespace trainer
