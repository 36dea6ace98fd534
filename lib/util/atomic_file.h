#pragma once
// Files the user keeps (configs, logs, checkpoints) are never left half
// written: content goes to a temporary file beside the target, is flushed to
// disk, then renamed over it in one step.
#include <functional>
#include <string>

namespace trainer {

// Writes `content` to `path` atomically. Throws IoError naming the path.
void write_file_atomic(const std::string& path, const std::string& content);

// Calls `write(tmp_path)` to produce the file under a temporary name, then
// renames it to `path`. The temporary is removed if `write` throws.
void write_atomic_with(const std::string& path,
                       const std::function<void(const std::string& tmp_path)>& write);

}  // namespace trainer
