// The files a run directory keeps, recognised by any spelling before a
// command writes over one of them.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "runs/kept_run_file.h"
#include "test_paths.h"
#include "util/error.h"

using namespace trainer;
namespace fs = std::filesystem;

TEST_CASE("a file a run keeps is recognised by any spelling, a new name in the run is not", "[runs][outputs]") {
  const std::string dir = testing::fresh_dir("kept-run-file");
  const std::string run = dir + "/runs/exp/r1";
  fs::create_directories(run + "/checkpoints");
  std::ofstream(run + "/run.json") << "{}";

  for (const char* name : {"config.yaml", "config.resume-2.yaml", "train.log", "metrics.jsonl", "steps.jsonl",
                           "run.json", "run.lock", "inputs.json", "vocabulary.txt", "events.out.tfevents.1.host",
                           "worklog.1"}) {
    INFO(name);
    // Kept whether it exists yet or not: the run writes them as it goes.
    CHECK(kept_run_file(run + "/" + name) == std::string("the ") + name + " of the run " + run);
  }
  CHECK(kept_run_file(run + "/checkpoints/best.pt") == "a file in the checkpoints folder of the run " + run);
  CHECK(kept_run_file(run + "/checkpoints/../metrics.jsonl") == "the metrics.jsonl of the run " + run);
  fs::create_directory_symlink(run, dir + "/latest");
  CHECK(kept_run_file(dir + "/latest/config.yaml") == "the config.yaml of the run " + dir + "/latest");

  // The report trainer rewrites, other names, and folders that are not runs.
  CHECK(kept_run_file(run + "/report.html").empty());
  CHECK(kept_run_file(run + "/notes.txt").empty());
  CHECK(kept_run_file(run + "/config.resume-x.yaml").empty());
  CHECK(kept_run_file(dir + "/runs/exp/metrics.jsonl").empty());
  CHECK(kept_run_file(dir + "/config.yaml").empty());
  CHECK(kept_run_file("config.yaml").empty());

  CHECK_NOTHROW(check_not_a_kept_run_file("-o", run + "/report.html"));
  CHECK_THROWS_AS(check_not_a_kept_run_file("-o", run + "/metrics.jsonl"), UsageError);
  CHECK_THROWS_WITH(check_not_a_kept_run_file("-o", run + "/metrics.jsonl"),
                    Catch::Contains("-o " + run + "/metrics.jsonl names the metrics.jsonl of the run " + run) &&
                        Catch::Contains("which the run keeps"));
}
