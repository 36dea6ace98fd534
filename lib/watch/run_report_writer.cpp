#include "watch/run_report_writer.h"

#include "report/html_report.h"
#include "util/error.h"
#include "util/logging.h"

namespace trainer {

void RunReportWriter::on_epoch(const EpochRecord& /*record*/, int64_t /*global_step*/) { write(); }

void RunReportWriter::on_end() { write(); }

void RunReportWriter::write() {
  try {
    write_report({run_dir_}, run_dir_ + "/report.html");
  } catch (const Error& e) {
    if (!warned_) log().warn("the run report was not written: {}", e.what());
    warned_ = true;
  }
}

}  // namespace trainer
