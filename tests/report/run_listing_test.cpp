// `trainer runs`: run.json files found under a log folder, newest first,
// killed runs told from running ones, damaged records skipped with a word.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "report/run_listing.h"
#include "util/error.h"

using namespace trainer;
using namespace trainer::testing;
namespace fs = std::filesystem;

namespace {

std::string host() {
  char name[256] = {};
  gethostname(name, sizeof name - 1);
  return name;
}

void write_record(const std::string& run_dir, const std::string& status, const std::string& started,
                  const std::string& ended, int pid, const std::string& metrics) {
  fs::create_directories(run_dir);
  std::ofstream(run_dir + "/run.json")
      << R"({"format":1,"status":")" << status << R"(","experiment":"exp","host":")" << host() << R"(","pid":)"
      << pid << R"(,"started_at":")" << started << R"(","ended_at":)" << (ended.empty() ? "null" : "\"" + ended + "\"")
      << R"(,"epochs":10,"epochs_done":4,"metrics":)" << metrics << "}";
}

const char* kClassifierMetrics =
    R"({"loss":{"best":0.5,"best_epoch":4},"accuracy":{"best":0.8,"best_epoch":4},)"
    R"("val_loss":{"best":0.6,"best_epoch":3},"val_accuracy":{"best":0.75,"best_epoch":2}})";

// A log folder with: a finished run, an older interrupted one, a "running"
// one whose process is gone, a damaged run.json, and a `latest` link.
std::string log_folder(const std::string& name) {
  const std::string dir = fresh_dir(name);
  write_record(dir + "/exp/done", "done", "2026-11-20T10:00:00+01:00", "2026-11-20T10:02:05+01:00", 1,
               kClassifierMetrics);
  write_record(dir + "/exp/older", "interrupted", "2026-11-19T10:00:00Z", "2026-11-19T11:30:00Z", 1,
               R"({"loss":{"best":0.9,"best_epoch":1}})");
  // pid 0x7ffffffe is never a live process here.
  write_record(dir + "/other/gone", "running", "2026-11-21T08:00:00+00:00", "", 2147483646, "{}");
  fs::create_directories(dir + "/exp/broken");
  std::ofstream(dir + "/exp/broken/run.json") << "{\"status\": \"run";
  fs::create_directory_symlink("done", dir + "/exp/latest");
  return dir;
}

}  // namespace

TEST_CASE("RFC 3339 times with offsets are read as the same instant", "[runs]") {
  CHECK(parse_rfc3339("2026-11-20T10:00:00+01:00") == parse_rfc3339("2026-11-20T09:00:00Z"));
  CHECK(parse_rfc3339("1970-01-01T00:01:40Z") == 100);
  CHECK(parse_rfc3339("1970-01-01T00:00:00-02:30") == 9000);
  CHECK_FALSE(parse_rfc3339("yesterday").has_value());
  CHECK_FALSE(parse_rfc3339("2026-11-20T10:00:00").has_value());
}

TEST_CASE("runs are listed newest first with status, epochs, best validation value and time", "[runs]") {
  const std::string dir = log_folder("runs-scan");
  const RunScan found = scan_runs(dir);
  REQUIRE(found.runs.size() == 3);  // `latest` not followed, the damaged record skipped
  CHECK(found.runs[0].name == "gone");
  CHECK(found.runs[0].status == "killed");
  CHECK(found.runs[1].name == "done");
  CHECK(found.runs[1].status == "done");
  CHECK(found.runs[1].metric == "val_accuracy");
  CHECK(found.runs[1].best == 0.75);
  CHECK(found.runs[1].best_epoch == 2);
  CHECK(found.runs[1].seconds == 125.0);
  CHECK(found.runs[2].name == "older");
  CHECK(found.runs[2].metric == "loss");  // no validation: the training loss
  CHECK(found.runs[2].seconds == 5400.0);
  REQUIRE(found.problems.size() == 1);
  CHECK_THAT(found.problems[0], Catch::Contains(dir + "/exp/broken/run.json: not a run record") &&
                                  Catch::EndsWith("; skipped"));
  CHECK_THROWS_AS(scan_runs(dir + "/missing"), UsageError);

  // A run.json that is no file is named as skipped, not taken for a folder.
  fs::create_directories(dir + "/exp/fifo");
  REQUIRE(mkfifo((dir + "/exp/fifo/run.json").c_str(), 0600) == 0);
  const RunScan with_fifo = scan_runs(dir);
  CHECK(with_fifo.runs.size() == 3);
  REQUIRE(with_fifo.problems.size() == 2);
  CHECK(with_fifo.problems[1] == dir + "/exp/fifo/run.json is a FIFO, not a regular file; skipped");
}

TEST_CASE("runs are compared by their train.monitor, as run.json names it", "[runs]") {
  const std::string dir = fresh_dir("runs-monitor");
  write_record(dir + "/exp/by-loss", "done", "2026-11-20T10:00:00Z", "2026-11-20T10:01:00Z", 1, kClassifierMetrics);
  // The record of a run that monitors val_loss: what best.pt and a sweep went by.
  std::string record = read_text(dir + "/exp/by-loss/run.json");
  record.insert(record.size() - 1, R"(,"monitor":"val_loss")");
  std::ofstream(dir + "/exp/by-loss/run.json", std::ios::trunc) << record;
  const RunScan found = scan_runs(dir);
  REQUIRE(found.runs.size() == 1);
  CHECK(found.runs[0].metric == "val_loss");
  CHECK(found.runs[0].best == 0.6);
  CHECK(found.runs[0].best_epoch == 3);
}

TEST_CASE("a hostile run.json cannot drive the terminal, and an impossible pid is no running process", "[runs]") {
  const std::string dir = fresh_dir("runs-hostile");
  fs::create_directories(dir + "/exp/evil");
  std::ofstream(dir + "/exp/evil/run.json")
      << R"({"format":1,"status":"running","experiment":"\u001b[2J\u001b]0;owned\u0007x\ny","host":")" << host()
      << R"(","pid":1099511627776,"started_at":"2026-11-21T08:00:00Z","epochs":1,"epochs_done":0})";
  const RunScan found = scan_runs(dir);
  REQUIRE(found.runs.size() == 1);
  CHECK(found.runs[0].status == "killed");  // pid 2^40: no process has it
  const std::string table = format_runs_table(found.runs);
  CHECK(table.find('\x1b') == std::string::npos);
  CHECK(table.find('\a') == std::string::npos);
  CHECK_THAT(table, Catch::Contains("\\x1b[2J\\x1b]0;owned\\x07x\\ny/evil"));
  CHECK(std::count(table.begin(), table.end(), '\n') == 2);  // the header and one row
}

TEST_CASE("trainer runs prints a table, or JSON for scripts", "[runs][e2e]") {
  const std::string dir = log_folder("runs-cli");
  const auto table = run_trainer({"runs", dir}, dir);
  INFO(table.err);
  REQUIRE(table.exit_code == 0);
  CHECK_THAT(table.out, Catch::StartsWith("RUN "));
  CHECK_THAT(table.out, Catch::Contains("exp/done") && Catch::Contains("val_accuracy 0.75 @2") &&
                            Catch::Contains("2m05s") && Catch::Contains("4/10") && Catch::Contains("killed") &&
                            Catch::Contains("1h30m"));
  CHECK(table.out.find("other/gone") < table.out.find("exp/done"));
  CHECK_THAT(table.err, Catch::Contains("broken/run.json: not a run record (a JSON object); skipped"));
  const auto json = run_trainer({"runs", dir, "--json"}, dir);
  REQUIRE(json.exit_code == 0);
  const auto list = nlohmann::json::parse(json.out);
  REQUIRE(list.size() == 3);
  CHECK(list[1]["name"] == "done");
  CHECK(list[1]["best"] == 0.75);
  CHECK(list[1]["path"] == fs::absolute(dir + "/exp/done").lexically_normal().string());
  CHECK(list[0]["best"].is_null());
  const auto missing = run_trainer({"runs", dir + "/nothing"}, dir);
  CHECK(missing.exit_code == 2);
  CHECK_THAT(missing.err, Catch::Contains("no folder " + dir + "/nothing"));
}
