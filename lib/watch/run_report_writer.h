#pragma once
// Keeps RUN_DIR/report.html (report/html_report.h) up to date: rewritten
// after every epoch and when the run ends, so an interrupted or failed run
// has one too. A report that cannot be written is warned about, once, and
// never stops the training. Torch-free.
#include <string>

#include "watch/run_observer.h"

namespace trainer {

class RunReportWriter : public RunObserver {
 public:
  explicit RunReportWriter(std::string run_dir) : run_dir_(std::move(run_dir)) {}
  void on_epoch(const EpochRecord& record, int64_t global_step) override;
  void on_end() override;

 private:
  void write();
  std::string run_dir_;
  bool warned_ = false;
};

}  // namespace trainer
