// train.batch_size: auto end to end: the search's number is logged, kept in
// the run's config.yaml and trains exactly as that number written in the
// file would; the setups it cannot serve are usage errors.
#include <catch2/catch.hpp>

#include <regex>

#include "cli_runner.h"
#include "experiment_files.h"
#include "json_lines.h"

using namespace trainer::testing;

namespace {

// 2048 hidden units on 256 features: a few hundred samples fill 64 MiB.
MlpExperiment wide_mlp(const std::string& name, const std::string& run_name, const std::string& batch) {
  MlpExperiment spec;
  spec.name = name;
  spec.samples = 20000;
  spec.run_name = run_name;
  spec.extra = "train: {epochs: 1, steps_per_epoch: 3, batch_size: " + batch + "}\nmemory_limit: 64MiB\n";
  return spec;
}

}  // namespace

TEST_CASE("train.batch_size: auto trains with the largest batch that fits memory_limit, a multiple of 8",
          "[e2e][batch_size]") {
  const std::string dir = fresh_dir("e2e-auto-batch");
  const auto found = run_trainer({"run", write_mlp_experiment(dir, wide_mlp("auto", "found", "auto"))}, dir);
  INFO(found.err);
  REQUIRE(found.exit_code == 0);
  std::smatch logged;
  REQUIRE(std::regex_search(found.err, logged,
                            std::regex("train.batch_size: auto: ([0-9]+) \\(the largest that fits memory_limit "
                                       "64.0 MiB is ([0-9]+); rounded down to a multiple of 8\\)")));
  const int64_t batch = std::stoll(logged[1].str()), largest = std::stoll(logged[2].str());
  CHECK(batch % 8 == 0);
  CHECK(batch <= largest);
  CHECK(largest - batch < 8);
  // Well inside the data: the memory, not the 20,000 samples, set it.
  CHECK(batch > 64);
  CHECK(batch < 20000);
  const std::string run = dir + "/runs/auto/found";
  CHECK_THAT(read_text(run + "/config.yaml"), Catch::Contains("batch_size: " + std::to_string(batch) + "\n"));

  SECTION("the same run with the number written trains exactly alike: the search leaves no trace") {
    const auto written =
        run_trainer({"run", write_mlp_experiment(dir, wide_mlp("auto", "written", std::to_string(batch)))}, dir);
    INFO(written.err);
    REQUIRE(written.exit_code == 0);
    const auto a = metrics_of(run), b = metrics_of(dir + "/runs/auto/written");
    REQUIRE(a.size() == 1);
    REQUIRE(b.size() == 1);
    CHECK(a[0]["loss"] == b[0]["loss"]);
    CHECK(a[0]["val_loss"] == b[0]["val_loss"]);
  }
  SECTION("a tiny data set all fits: the data set the limit, and the log says so") {
    MlpExperiment tiny = wide_mlp("auto", "tiny", "auto");
    tiny.samples = 100;
    const auto all = run_trainer({"run", write_mlp_experiment(dir, tiny)}, dir);
    INFO(all.err);
    REQUIRE(all.exit_code == 0);
    CHECK_THAT(all.err, Catch::Contains("train.batch_size: auto: 100 (the whole training set"));
  }
}

TEST_CASE("train.batch_size: auto without memory_limit or over several devices is a usage error",
          "[e2e][batch_size]") {
  const std::string dir = fresh_dir("e2e-auto-batch-refused");
  MlpExperiment unbounded = wide_mlp("refused", "", "auto");
  unbounded.extra = "train: {epochs: 1, batch_size: auto}\n";
  const auto no_budget = run_trainer({"run", write_mlp_experiment(dir, unbounded)}, dir);
  CHECK(no_budget.exit_code == 2);
  CHECK_THAT(no_budget.err, Catch::Contains("train.batch_size: auto needs a memory budget") &&
                                Catch::Contains("memory_limit"));
  const auto two = run_trainer({"run", write_mlp_experiment(dir, wide_mlp("refused", "", "auto")), "--set",
                                "devices=cpu,cpu"},
                               dir);
  CHECK(two.exit_code == 2);
  CHECK_THAT(two.err, Catch::Contains("train.batch_size: auto is for a run on one device, not devices: cpu,cpu"));
  const auto typo = run_trainer({"run", write_mlp_experiment(dir, wide_mlp("refused", "", "automatic"))}, dir);
  CHECK(typo.exit_code == 2);
  CHECK_THAT(typo.err, Catch::Contains("train.batch_size: expected an integer >= 1 or auto, got 'automatic'"));
}
