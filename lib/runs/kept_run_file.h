#pragma once
// The files a run directory (a folder holding run.json) keeps for the run:
// what resume, eval, predict, `trainer runs` and the reports read back. A
// command writing a file the user names checks it is none of them first:
// `trainer report RUN -o RUN/metrics.jsonl` would otherwise replace the
// run's record with a web page. Torch-free.
#include <string>
#include <vector>

#include "util/input_guard.h"

namespace trainer {

// What `path` is when it names a file the run keeps, by any spelling:
// its config.yaml (and config.resume-N.yaml), train.log, metrics.jsonl,
// steps.jsonl, run.json, run.lock, inputs.json, vocabulary.txt, its
// TensorBoard events, a rank's worklog.N, or anything in its checkpoints/
// folder: "the metrics.jsonl of the run runs/x/y" (as `path` spells it).
// Empty for any other path, whether or not it exists; report.html, which
// `trainer report` rewrites, is not kept.
std::string kept_run_file(const std::string& path);

// Throws UsageError when `output` (the value of `option`, "-o") is such a
// file.
void check_not_a_kept_run_file(const std::string& option, const std::string& output);

// Every check on a file the user names for a command to write, before the
// command's work: one trainer may replace (atomic_file.h's
// check_replaceable), not a file a run keeps, and none of `inputs`.
void check_output_file(const std::string& option, const std::string& output, const std::vector<ReadFile>& inputs);

}  // namespace trainer
