#pragma once
// `trainer report` and RUN_DIR/report.html: one self-contained HTML page
// (inline SVG charts, inline CSS, no scripts, nothing fetched) that shows one
// run or compares several. Torch-free.
#include <string>
#include <vector>

#include "report/run_files.h"

namespace trainer {

// The page for `runs` (one or more): a table of the runs (status, epochs,
// best value and epoch, time), for several runs the config keys whose
// values differ, and charts: every metric by epoch (training solid,
// validation dashed), loss and learning rate by step, samples/s, data wait,
// the step-time split and peak memory by epoch.
std::string render_report(const std::vector<RunFiles>& runs);

// Reads the run directories and writes the page to `output` atomically
// ("-": to standard output). Returns the runs' files that were there but
// could not be read (RunFiles::unread), for the caller to warn of.
// Throws DataError for a folder that is not a run, IoError for the output.
std::vector<std::string> write_report(const std::vector<std::string>& run_dirs, const std::string& output);

}  // namespace trainer
