#pragma once
// Files the user keeps (configs, logs, checkpoints) are never left half
// written: content goes to a temporary file beside the target, is flushed to
// disk, then renamed over it in one step.
#include <functional>
#include <string>
#include <vector>

namespace trainer {

// Writes `content` to `path` atomically. Throws IoError naming the path.
void write_file_atomic(const std::string& path, const std::string& content);

// Calls `write(tmp_path)` to produce the file under a temporary name, then
// renames it to `path`. The temporary is removed if `write` throws.
void write_atomic_with(const std::string& path,
                       const std::function<void(const std::string& tmp_path)>& write);

// Removes from `dir` the temporary files that writers killed mid-write left
// behind: only names this module makes (NAME.tmp.PID) whose process is gone;
// a live process's temporary is never touched. Returns the paths removed.
std::vector<std::string> remove_stale_temp_files(const std::string& dir);

}  // namespace trainer
