// train.ema end to end: validation, eval and export use the averaged weights,
// a resumed run continues the average exactly, evaluate: false keeps the
// trained weights.
#include <catch2/catch.hpp>

#include "cli_runner.h"
#include "epoch_records.h"
#include "experiment_files.h"

using namespace trainer::testing;

TEST_CASE("the weight average is validated, evaluated, and resumed exactly", "[e2e][ema][resume]") {
  const std::string dir = fresh_dir("e2e-ema");
  const std::string experiment =
      write_mlp_experiment(dir, small_mlp("ema", "full", "train: {epochs: 4, ema: {decay: 0.9}}\noptimizer: {lr: 0.01}\n"));
  const auto full = run_trainer({"run", experiment}, dir);
  INFO(full.err);
  REQUIRE(full.exit_code == 0);
  const auto records = parse_records(full.out);
  REQUIRE(records.size() == 4);
  // trainer eval of the last checkpoint validates the average, as the run did.
  const auto eval = run_trainer({"eval", "--checkpoint", dir + "/runs/ema/full"}, dir);
  REQUIRE(eval.exit_code == 0);
  CHECK_THAT(records.back().values, Catch::Contains(eval.out.substr(0, eval.out.find(','))));
  const auto trained = run_trainer({"eval", "--checkpoint", dir + "/runs/ema/full", "--set", "train.ema.evaluate=false"}, dir);
  REQUIRE(trained.exit_code == 0);
  CHECK(trained.out != eval.out);
  // 2 epochs, then resumed to 4: the same records as the run that went straight through.
  const std::string cut = write_mlp_experiment(
      dir, small_mlp("ema", "cut", "train: {epochs: 2, ema: {decay: 0.9}}\noptimizer: {lr: 0.01}\n"));
  const auto first = run_trainer({"run", cut}, dir);
  REQUIRE(first.exit_code == 0);
  const auto rest = run_trainer({"run", "--resume", dir + "/runs/ema/cut", "--set", "train.epochs=4"}, dir);
  INFO(rest.err);
  REQUIRE(rest.exit_code == 0);
  const auto resumed = parse_records(rest.out);
  REQUIRE(resumed.size() == 2);
  CHECK(resumed[0].values == records[2].values.substr(0, records[2].values.size()));
  CHECK(resumed[1].values == records[3].values);
}
