#pragma once
// Files the user keeps (configs, logs, checkpoints) are never left half
// written: content goes to a temporary file beside the target, is flushed to
// disk, then renamed over it in one step.
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "util/error.h"

namespace trainer {

// Throws IoError when `path` exists and is not a regular file trainer may
// replace: a device node, a FIFO, a socket, a directory, or a symbolic link
// (renaming over a link would replace the link, and writing through it would
// write somewhere the user did not name). A writer of several files checks
// them all with this before writing the first.
void check_replaceable(const std::string& path);

// Writes `content` to `path` atomically. Throws IoError naming the path
// (check_replaceable's refusals included).
void write_file_atomic(const std::string& path, const std::string& content);

// Calls `write(tmp_path)` to produce the file under a temporary name, then
// renames it to `path`. The temporary is removed if `write` throws. Refuses
// what check_replaceable refuses, before `write` runs.
void write_atomic_with(const std::string& path,
                       const std::function<void(const std::string& tmp_path)>& write);

// A new file written in pieces, for write_atomic_with's writer: `tmp` is
// made at once (an IoError naming `path` if it cannot be); a failed write
// is kept, not thrown, so that a producer that cannot stop midway
// (LibTorch's serialiser) runs to its end, and later writes are skipped;
// close() flushes the file to disk and throws the first failure, naming
// `path` and its file system's free space.
class FileSink {
 public:
  FileSink(const std::string& tmp, std::string path);
  ~FileSink();
  FileSink(const FileSink&) = delete;
  FileSink& operator=(const FileSink&) = delete;
  void write(std::string_view bytes);
  void close();

 private:
  int fd_ = -1;
  int error_ = 0;  // the first failure's errno
  std::string path_;
};

// Gives the complete file `from` a second name, `to`, atomically: a hard
// link where the file system allows one (no bytes written, no space taken
// while both names exist; removing either name leaves the other whole),
// else a copy written as write_file_atomic writes. The file must not be
// changed in place afterwards (trainer's writers replace files by rename,
// so it never is). Throws IoError naming both paths.
void link_or_copy_atomic(const std::string& from, const std::string& to);

// Appends `text` to `path` whole or not at all: a failed write (disk full)
// is cut back to the previous end, so no half line stays. Throws IoError.
void append_to_file(const std::string& path, const std::string& text);

// The IoError for a failed write of `path` (errno `error`), naming the free
// space of its file system, with a hint.
IoError write_failure(const std::string& path, int error);

// Removes from `dir` the temporary files that writers killed mid-write left
// behind: only names this module makes (NAME.tmp.PID) whose process is gone;
// a live process's temporary is never touched. Returns the paths removed.
std::vector<std::string> remove_stale_temp_files(const std::string& dir);

}  // namespace trainer
