#pragma once
// A checkpoint is a ZIP archive (LibTorch's format) whose archive comment
// holds "trainer-sha256:" and the SHA-256 of the bytes before it. LibTorch's
// reader does not check its members' CRC-32s, so without the seal a file with
// a zeroed block would load and resume with other numbers. Zip readers
// ignore the comment: a sealed checkpoint still loads in LibTorch or Python.
#include <string>

#include "util/error.h"

namespace trainer {

// A checkpoint that must not be resumed from: its bytes are not what was
// written, or its weights are not finite. Resuming a run skips it for an
// older one.
struct UnusableCheckpoint : IoError {
  explicit UnusableCheckpoint(const std::string& message, std::string hint = {}) : IoError(message, std::move(hint)) {}
};

// `archive` (LibTorch's serialised bytes, no archive comment) with the seal
// added. Throws IoError when `archive` is not such a zip.
std::string seal_checkpoint(std::string archive, const std::string& path);

enum class Seal { kVerified, kAbsent };

// Checks the seal, when there is one (kAbsent: a checkpoint of an older
// trainer), and every member's CRC-32. Throws UnusableCheckpoint naming
// `path` and what does not match.
Seal verify_checkpoint(const std::string& bytes, const std::string& path);

}  // namespace trainer
