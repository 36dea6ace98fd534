#pragma once
// A checkpoint is a ZIP archive (LibTorch's format) whose archive comment
// holds "trainer-sha256:" and the SHA-256 of the bytes before it. LibTorch's
// reader does not check its members' CRC-32s, so without the seal a file with
// a zeroed block would load and resume with other numbers. Zip readers
// ignore the comment: a sealed checkpoint still loads in LibTorch or Python.
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "util/error.h"
#include "util/sha256.h"

namespace trainer {

// A checkpoint that must not be resumed from: its bytes are not what was
// written, or its weights are not finite. Resuming a run skips it for an
// older one.
struct UnusableCheckpoint : IoError {
  explicit UnusableCheckpoint(const std::string& message, std::string hint = {}) : IoError(message, std::move(hint)) {}
};

// Seals LibTorch's archive while it is written, so that no copy of the
// whole archive is ever held: each piece given to append() is hashed and
// passed on to `out`, but for the last 22 bytes, which the end-of-directory
// record will be; finish() checks that record (no comment yet), writes it
// with the seal as its comment, and the seal covers every byte before the
// record's comment-length field. Throws IoError naming `path` when the
// bytes are not such a zip.
class CheckpointSealer {
 public:
  using Sink = std::function<void(std::string_view)>;
  CheckpointSealer(Sink out, std::string path);
  ~CheckpointSealer();
  void append(const void* data, size_t size);
  void finish();

 private:
  Sink out_;
  std::string path_;
  std::unique_ptr<Sha256> digest_;
  std::string held_;  // bytes not yet passed on: at least the last 22 once there are
};

// `archive` (LibTorch's serialised bytes, no archive comment) with the seal
// added, as CheckpointSealer writes it. Throws IoError when `archive` is not
// such a zip.
std::string seal_checkpoint(const std::string& archive, const std::string& path);

enum class Seal { kVerified, kAbsent };

// Checks the seal, when there is one (kAbsent: a checkpoint of an older
// trainer), and every member's CRC-32. Throws UnusableCheckpoint naming
// `path` and what does not match.
Seal verify_checkpoint(const std::string& bytes, const std::string& path);

}  // namespace trainer
