#pragma once
// The few error types trainer throws. Library code never exits; `main` catches
// these and turns each into the documented exit code (README "Exit codes").
#include <stdexcept>
#include <string>
#include <vector>

namespace trainer {

enum class ExitCode : int {
  kSuccess = 0,
  kInternal = 1,     // a bug or an unexpected library failure
  kUsage = 2,        // bad command line or experiment file
  kData = 3,         // dataset missing, truncated or corrupt
  kIo = 4,           // run directory or checkpoint cannot be read or written
  kDevice = 5,       // requested device unavailable
  kOutOfMemory = 6,  // memory budget exceeded
  kDiverged = 7,     // loss became NaN or infinite
  kDistributed = 8,  // a rank failed or a collective timed out
  kInterrupted = 9,  // SIGINT/SIGTERM: stopped after saving a checkpoint
  kRequeue = 10,     // train.requeue_signal: stopped after saving a checkpoint; requeue the job to continue
};

class Error : public std::runtime_error {
 public:
  Error(ExitCode code, const std::string& message, std::string hint = {})
      : std::runtime_error(message), code_(code), hint_(std::move(hint)) {}
  ExitCode code() const { return code_; }
  // What the user can do about it; may be empty.
  const std::string& hint() const { return hint_; }

 private:
  ExitCode code_;
  std::string hint_;
};

// All problems found in an experiment file, reported together.
class ConfigError : public Error {
 public:
  explicit ConfigError(std::vector<std::string> problems)
      : Error(ExitCode::kUsage, join(problems)), problems_(std::move(problems)) {}
  const std::vector<std::string>& problems() const { return problems_; }

 private:
  static std::string join(const std::vector<std::string>& lines) {
    std::string out;
    for (const auto& line : lines) out += (out.empty() ? "" : "\n") + line;
    return out;
  }
  std::vector<std::string> problems_;
};

struct DataError : Error {
  explicit DataError(const std::string& message, std::string hint = {})
      : Error(ExitCode::kData, message, std::move(hint)) {}
};

struct IoError : Error {
  explicit IoError(const std::string& message, std::string hint = {})
      : Error(ExitCode::kIo, message, std::move(hint)) {}
};

struct UsageError : Error {
  explicit UsageError(const std::string& message, std::string hint = {})
      : Error(ExitCode::kUsage, message, std::move(hint)) {}
};

struct DivergedError : Error {
  explicit DivergedError(const std::string& message, std::string hint = {})
      : Error(ExitCode::kDiverged, message, std::move(hint)) {}
};

// An allocation would exceed the memory budget (memory_limit).
struct OutOfMemoryError : Error {
  explicit OutOfMemoryError(const std::string& message, std::string hint = {})
      : Error(ExitCode::kOutOfMemory, message, std::move(hint)) {}
};

// A requested device does not exist or cannot be used.
struct DeviceError : Error {
  explicit DeviceError(const std::string& message, std::string hint = {})
      : Error(ExitCode::kDevice, message, std::move(hint)) {}
};

// A peer rank failed, went silent, or could not be reached.
struct DistributedError : Error {
  explicit DistributedError(const std::string& message, std::string hint = {})
      : Error(ExitCode::kDistributed, message, std::move(hint)) {}
};

struct InterruptedError : Error {
  explicit InterruptedError(const std::string& message)
      : Error(ExitCode::kInterrupted, message) {}
};

// The requeue signal came (a cluster's warning before a time limit): a
// checkpoint was saved; the next job resumes from it.
struct RequeueError : Error {
  explicit RequeueError(const std::string& message) : Error(ExitCode::kRequeue, message) {}
};

}  // namespace trainer
