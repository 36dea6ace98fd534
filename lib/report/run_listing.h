#pragma once
// `trainer runs [LOG_DIR]`: every run under a folder, read from its
// run.json, newest first, as a table or JSON. Torch-free.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace trainer {

struct RunListing {
  std::string experiment;
  std::string name;    // the run directory's name
  std::string path;    // the run directory, as found under LOG_DIR
  std::string status;  // run.json's, or "killed": "running" but its process is gone from this host
  int64_t epochs = 0, epochs_done = 0;
  // The figure to compare runs by: train.monitor's (run.json's monitor; the
  // figure best.pt and sweeps go by); for runs older than that key, the first
  // validation metric, else val_loss, else the training loss.
  std::string metric;
  std::optional<double> best;
  int64_t best_epoch = 0;
  std::string started_at;            // RFC 3339, this invocation's start
  std::optional<double> seconds;     // this invocation's wall time; to now while running
  int64_t started_epoch_seconds = 0;  // for sorting
};

struct RunScan {
  std::vector<RunListing> runs;       // newest first
  std::vector<std::string> problems;  // "DIR/run.json: why it was skipped"
};

// One run directory's listing, from its run.json. Throws DataError naming
// the file when it is missing or not a run record.
RunListing read_run_listing(const std::string& run_dir);
// The same from run.json's text, read already.
RunListing run_listing_from_text(const std::string& text, const std::string& run_dir);

// Finds run.json files under `log_dir` (up to 4 folders deep, never through
// symbolic links such as `latest`). Throws UsageError when `log_dir` is not
// a folder.
RunScan scan_runs(const std::string& log_dir);

// Columns RUN, STATUS, EPOCHS, BEST, TIME, PATH; "-" where unknown.
std::string format_runs_table(const std::vector<RunListing>& runs);
// A JSON array on one line, one object per run (paths absolute).
std::string format_runs_json(const std::vector<RunListing>& runs);

// Seconds since the Unix epoch of RFC 3339 text "2026-11-23T23:10:05+01:00";
// nullopt when it is not that.
std::optional<int64_t> parse_rfc3339(const std::string& text);

}  // namespace trainer
