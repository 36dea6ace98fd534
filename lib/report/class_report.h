#pragma once
// A classifier's last validation class by class, as the report shows it:
// the confusion matrix as a heat map and each class's precision, recall, F1
// and support, read from metrics.jsonl (val_confusion_matrix, val_per_class)
// and the class names from run.json. Torch-free.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace trainer {

struct ClassReport {
  int64_t epoch = 0;
  std::vector<std::string> names;  // one a class; "0", "1", ... where the data names none
  std::vector<std::vector<int64_t>> confusion;  // rows: true classes
  std::vector<double> precision, recall, f1;
  std::vector<int64_t> support;
};

// The newest epoch of `metrics_jsonl` that recorded its classes, with the
// names of `run_json` (either text may be empty). Nothing when no epoch did
// or its record is not whole.
std::optional<ClassReport> read_class_report(const std::string& metrics_jsonl, const std::string& run_json);

// The report's section: the heat map (each row shaded by its share of the
// class's samples) and the per-class table; `label` names the run.
std::string render_class_report(const ClassReport& report, const std::string& label);

}  // namespace trainer
