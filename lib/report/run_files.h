#pragma once
// What a run directory holds for its report: run.json's summary, the epoch
// lines of metrics.jsonl, the per-step points of steps.jsonl, the resolved
// config flattened to keys, and the sample pictures. Torch-free.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "report/class_report.h"
#include "report/run_listing.h"
#include "report/sample_pictures.h"

namespace trainer {

// One JSON-lines record's numbers by key; null is NaN, other values are left out.
using NumberRecord = std::map<std::string, double>;

struct RunFiles {
  std::string dir;
  RunListing listing;              // experiment and name from the folder when run.json is missing
  std::vector<NumberRecord> epochs;  // metrics.jsonl
  std::vector<NumberRecord> steps;   // steps.jsonl
  std::map<std::string, std::string> config;  // "train.batch_size" -> "32"; lists of scalars in flow form
  std::string config_text;                     // config.yaml as written
  std::optional<ClassReport> classes;          // a classifier's last validation, class by class
  SamplePictures samples;                      // an image-to-image model's newest sample pictures
  // The run's files that are there but could not be read, each with why
  // ("runs/x/metrics.jsonl is a FIFO, not a regular file"): the page leaves
  // out what they hold and says so, and so does `trainer report`.
  std::vector<std::string> unread;
};

// Reads `dir`. Throws DataError naming it when it holds neither run.json nor
// metrics.jsonl (not a run directory) or neither can be read. Lines that do
// not parse are skipped.
RunFiles read_run_files(const std::string& dir);

// A YAML document as key paths to flow-style values: maps joined by ".",
// lists of maps indexed ("model.layers[2].units"), lists of scalars kept
// whole ("[28, 28]"). Empty when the text is not YAML.
std::map<std::string, std::string> flatten_yaml(const std::string& text);

// Each JSON-lines record's numbers.
std::vector<NumberRecord> read_number_lines(const std::string& text);

}  // namespace trainer
