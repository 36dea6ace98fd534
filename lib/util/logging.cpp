#include "util/logging.h"

#include <fcntl.h>
#include <unistd.h>

#include <spdlog/sinks/base_sink.h>
#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/ringbuffer_sink.h>
#include <spdlog/sinks/stdout_sinks.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <memory>
#include <mutex>
#include <utility>

#include <nlohmann/json.hpp>

#include "util/atomic_file.h"
#include "util/error.h"
#include "util/json.h"

namespace trainer {
namespace {

std::shared_ptr<spdlog::logger>& logger_slot() {
  static std::shared_ptr<spdlog::logger> logger;
  return logger;
}

std::shared_ptr<spdlog::sinks::basic_file_sink_mt>& file_sink_slot() {
  static std::shared_ptr<spdlog::sinks::basic_file_sink_mt> sink;
  return sink;
}

std::shared_ptr<spdlog::sinks::basic_file_sink_mt>& worklog_slot() {
  static std::shared_ptr<spdlog::sinks::basic_file_sink_mt> sink;
  return sink;
}

// The first failed write to a log file (spdlog reports it to the logger's
// error handler, not to the caller), until a run checks for it.
int& log_failure_slot() {
  static int error = 0;  // errno of the failure; 0: none
  return error;
}

// The console's sink: its level is what --log-level shows.
std::shared_ptr<spdlog::sinks::stderr_sink_mt>& console_slot() {
  static std::shared_ptr<spdlog::sinks::stderr_sink_mt> sink;
  return sink;
}

// What was logged before a run's log files existed (loading the data set,
// downloading it), copied into each file when it opens.
std::shared_ptr<spdlog::sinks::ringbuffer_sink_mt>& early_lines_slot() {
  static std::shared_ptr<spdlog::sinks::ringbuffer_sink_mt> sink;
  return sink;
}
constexpr size_t kEarlyLines = 256;

int& rank_slot() {
  static int rank = 0;
  return rank;
}

std::shared_ptr<spdlog::sinks::basic_file_sink_mt> open_file_sink(const std::string& path) {
  try {
    auto sink = std::make_shared<spdlog::sinks::basic_file_sink_mt>(path, /*truncate=*/false);
    sink->set_pattern("[%Y-%m-%d %H:%M:%S.%e %l] %v");
    // The file keeps info even when the console is quieter.
    sink->set_level(spdlog::level::info);
    return sink;
  } catch (const spdlog::spdlog_ex& e) {
    throw IoError("cannot open log file " + path + ": " + e.what());
  }
}

void attach(const std::shared_ptr<spdlog::sinks::basic_file_sink_mt>& sink) {
  if (const auto& early = early_lines_slot()) {
    try {
      for (const auto& line : early->last_raw()) sink->log(line);
      sink->flush();
    } catch (const spdlog::spdlog_ex&) {
      throw write_failure(sink->filename(), errno != 0 ? errno : EIO);
    }
  }
  auto& logger = logger_slot();
  logger->sinks().push_back(sink);
  logger->set_level(std::min(logger->level(), spdlog::level::info));
}

void detach(std::shared_ptr<spdlog::sinks::basic_file_sink_mt>& sink) {
  if (!sink) return;
  auto& sinks = logger_slot()->sinks();
  sinks.erase(std::remove(sinks.begin(), sinks.end(), sink), sinks.end());
  sink->flush();
  sink.reset();
}

// Each message as one JSON line, written by one write(2) to a file opened
// for appending, so that a reader never meets half a line that will be
// finished later by another write. A line that cannot be written is lost:
// the worklog has it too.
class RelaySink final : public spdlog::sinks::base_sink<std::mutex> {
 public:
  explicit RelaySink(int fd) : fd_(fd) {}
  ~RelaySink() override { ::close(fd_); }
  RelaySink(const RelaySink&) = delete;
  RelaySink& operator=(const RelaySink&) = delete;

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    const std::time_t seconds = std::chrono::system_clock::to_time_t(msg.time);
    std::tm local{};
    localtime_r(&seconds, &local);
    char time[16] = {};
    std::strftime(time, sizeof time, "%H:%M:%S", &local);
    const auto level = spdlog::level::to_string_view(msg.level);
    const std::string line = json_line(nlohmann::ordered_json{{"time", time},
                                                              {"level", std::string(level.data(), level.size())},
                                                              {"text", std::string(msg.payload.data(), msg.payload.size())}});
    if (::write(fd_, line.data(), line.size()) < 0) return;
  }
  void flush_() override {}

 private:
  int fd_;
};

}  // namespace

spdlog::level::level_enum parse_log_level(const std::string& text) {
  static const std::pair<const char*, spdlog::level::level_enum> kLevels[] = {
      {"trace", spdlog::level::trace}, {"debug", spdlog::level::debug}, {"info", spdlog::level::info},
      {"warn", spdlog::level::warn},   {"error", spdlog::level::err},   {"off", spdlog::level::off}};
  for (const auto& [name, level] : kLevels)
    if (text == name) return level;
  throw UsageError("unknown log level '" + text + "'", "use one of: trace, debug, info, warn, error, off");
}

void init_logging(spdlog::level::level_enum level) {
  auto& console = console_slot();
  console = std::make_shared<spdlog::sinks::stderr_sink_mt>();
  console->set_pattern("%^[%H:%M:%S %l]%$ %v");
  console->set_level(level);
  early_lines_slot() = std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(kEarlyLines);
  early_lines_slot()->set_level(spdlog::level::info);
  auto logger = std::make_shared<spdlog::logger>("trainer", spdlog::sinks_init_list{console, early_lines_slot()});
  // The console sink filters to `level`; the files keep info whatever it is.
  logger->set_level(std::min(level, spdlog::level::info));
  // Every line reaches the files at once: a rank that is killed leaves its
  // last steps in its worklog (a few lines per epoch, so this costs nothing).
  logger->flush_on(spdlog::level::info);
  // spdlog's message ("Failed writing to file PATH") is not kept: the
  // IoError of throw_if_log_write_failed says it with the free space.
  logger->set_error_handler([](const std::string&) {
    if (log_failure_slot() == 0) log_failure_slot() = errno != 0 ? errno : EIO;
  });
  logger_slot() = logger;
}

void add_log_file(const std::string& path) {
  if (!logger_slot()) init_logging(spdlog::level::info);
  file_sink_slot() = open_file_sink(path);
  attach(file_sink_slot());
}

void add_worklog(const std::string& path) {
  if (!logger_slot()) init_logging(spdlog::level::info);
  worklog_slot() = open_file_sink(path);
  attach(worklog_slot());
}

void close_log_file() {
  if (!logger_slot()) return;
  detach(file_sink_slot());
  detach(worklog_slot());
}

void set_log_rank(int rank) {
  rank_slot() = rank;
  if (!logger_slot()) init_logging(spdlog::level::info);
  if (rank == 0) return;
  auto& console = console_slot();
  console->set_pattern("%^[%H:%M:%S %l]%$ [rank " + std::to_string(rank) + "] %v");
  console->set_level(std::max(console->level(), spdlog::level::warn));
}

int log_rank() { return rank_slot(); }

bool relay_warnings_to(const std::string& path, bool console) {
  if (!logger_slot()) init_logging(spdlog::level::info);
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (fd < 0) return false;
  auto sink = std::make_shared<RelaySink>(fd);
  // Every warning, whatever --log-level shows: the supervisor compares the
  // ranks' warnings with the node's first rank's, then applies the level.
  sink->set_level(spdlog::level::warn);
  logger_slot()->sinks().push_back(sink);
  if (!console) console_slot()->set_level(spdlog::level::off);
  return true;
}

bool console_shows(spdlog::level::level_enum level) {
  if (!logger_slot()) init_logging(spdlog::level::info);
  return console_slot()->should_log(level);
}

spdlog::logger& log() {
  auto& logger = logger_slot();
  if (!logger) init_logging(spdlog::level::info);
  return *logger;
}

void warn_at_every_level(const std::string& message) {
  log().warn("{}", message);
  if (console_slot()->level() > spdlog::level::warn)
    std::fprintf(stderr, "trainer: warning: %s\n", message.c_str());
}

void log_error_to_files(const std::string& message) {
  for (auto* slot : {&file_sink_slot(), &worklog_slot()})
    if (*slot) {
      (*slot)->log(spdlog::details::log_msg("trainer", spdlog::level::err, message));
      (*slot)->flush();
    }
}

void throw_if_log_write_failed() {
  if (log_failure_slot() == 0) return;
  const int error = std::exchange(log_failure_slot(), 0);
  const auto& sink = file_sink_slot() ? file_sink_slot() : worklog_slot();
  throw write_failure(sink ? sink->filename() : std::string("the log file"), error);
}

void emit_record(const std::string& record) {
  // A reader that went away (`trainer run ... | head -1`), or a stdout that
  // cannot be written (a full disk, a closed descriptor), is no reason to
  // lose the run: SIGPIPE is ignored (signals.h), the records go on into
  // train.log, and the failure is reported once.
  static bool stdout_closed = false;
  static bool stdout_failed = false;
  if (!stdout_closed) {
    errno = 0;
    const bool written = std::fwrite(record.data(), 1, record.size(), stdout) == record.size();
    const bool flushed = std::fflush(stdout) == 0;
    const int error = errno;
    if (!flushed || !written) {
      if (error == EPIPE) {
        stdout_closed = true;
        log().warn("standard output was closed (EPIPE): epoch records go on into train.log only");
      } else if (!stdout_failed) {
        stdout_failed = true;
        log().warn("standard output cannot be written ({}): epoch records go on into train.log",
                   error != 0 ? std::strerror(error) : "a write failed");
      }
      std::clearerr(stdout);
    }
  }
  if (auto& sink = file_sink_slot()) {
    // Raw text, without the log pattern, so the file parses like stdout.
    sink->flush();
    append_to_file(sink->filename(), record);
  }
}

}  // namespace trainer
