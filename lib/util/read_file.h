#pragma once
// Reading whole files: configs, run records, /proc and /sys files,
// checkpoints and data sets. Every reader goes through here so that no
// input can make trainer read forever: a device (/dev/zero, /dev/urandom),
// a FIFO or a socket is refused before a byte is read, and a file is read
// only up to a cap fitting its kind.
#include <cstdint>
#include <limits>
#include <optional>
#include <string>

namespace trainer {

// What a configuration-sized text may hold: an experiment file, an
// `extends:` base, a run's config.yaml.
inline constexpr uint64_t kConfigFileCap = uint64_t{4} << 20;
// A run's records (run.json, metrics.jsonl, steps.jsonl).
inline constexpr uint64_t kRecordFileCap = uint64_t{512} << 20;

struct FileRead {
  std::string bytes;
  // Empty when read; otherwise why not, in words that follow the path:
  // "does not exist", "is a FIFO, not a regular file", "is larger than
  // 4 MiB, the most a config file may hold".
  std::string problem;
  bool missing = false;  // the path names nothing
  bool ok() const { return problem.empty(); }
};

// Reads `path` whole when it is a regular file of at most `cap` bytes
// (`kind` names what it is, for the message). A FIFO is never opened
// blocking, so this cannot hang.
FileRead read_regular_file(const std::string& path, uint64_t cap = std::numeric_limits<uint64_t>::max(),
                           const std::string& kind = "file");

// Why `path` cannot be read as a regular file ("is a directory, not a
// regular file"), or "" when it can be opened as one. Nothing is read.
std::string regular_file_problem(const std::string& path);

// The file's bytes; nothing when it cannot be read (absent, unreadable, not
// a regular file, larger than `cap`). For files whose absence is normal.
std::optional<std::string> read_text_file(const std::string& path, uint64_t cap = kRecordFileCap);

// What a file of mode `mode` (stat's st_mode) is, for messages: "a FIFO",
// "a character device", "a directory".
std::string file_kind_text(unsigned mode);

// "1.5 MiB", "512 bytes": a size for messages.
std::string byte_size_text(uint64_t bytes);

}  // namespace trainer
