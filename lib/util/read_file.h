#pragma once
// Reading a whole (small) text file: configs, /proc and /sys files, run
// records. Data sets have their own reader (data/file_bytes.h), which
// reports a DataError.
#include <optional>
#include <string>

namespace trainer {

// The file's bytes; nothing when it cannot be opened (absent, unreadable,
// a directory).
std::optional<std::string> read_text_file(const std::string& path);

}  // namespace trainer
