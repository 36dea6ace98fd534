#pragma once
// One logger for the whole program, aware of the rank. Messages go to stderr;
// once a run directory exists they also go to <run_dir>/train.log (rank 0)
// and to each rank's worklog.<rank>, which also get the lines logged before
// they opened (loading the data). The epoch records, the documented
// contract, go to stdout through `emit_record`.
#include <spdlog/spdlog.h>

#include <string>

namespace trainer {

// Text accepted by --log-level: trace, debug, info, warn, error, off.
spdlog::level::level_enum parse_log_level(const std::string& text);

void init_logging(spdlog::level::level_enum level);
// Also write every message to `path` (appended, so resumed runs keep history).
void add_log_file(const std::string& path);
// This rank's own log, <run_dir>/worklog.<rank> (every message, info and up).
void add_worklog(const std::string& path);
void close_log_file();

// Ranks other than 0 show only warnings and errors on the console, prefixed
// with their rank; their full story is in their worklog.
void set_log_rank(int rank);
int log_rank();

// Under trainer's supervisor: this rank's warnings and errors also go to
// `path`, one JSON line each ({"time":"12:22:02","level":"warning",
// "text":"..."}), for the supervisor to print once for every rank that
// logged them alike (distributed/warning_relay.h). With `console` false the
// rank prints none of them itself. False, the console left as it was, when
// `path` cannot be opened.
bool relay_warnings_to(const std::string& path, bool console);
// Whether the console shows messages of `level` (--log-level).
bool console_shows(spdlog::level::level_enum level);

spdlog::logger& log();

// A warning that scripts must not miss: logged, and also written to stderr
// when --log-level is above warn.
void warn_at_every_level(const std::string& message);

// An error into the log files only (the console gets it from main's one
// catch site).
void log_error_to_files(const std::string& message);

// An IoError when a message could not be written to a log file (disk full)
// since the last call; spdlog itself only reports it to its error handler.
void throw_if_log_write_failed();

// Writes an epoch record to stdout (flushed, for pipes) and to the log file.
void emit_record(const std::string& record);

}  // namespace trainer
