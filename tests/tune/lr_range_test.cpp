// The learning-rate range test: its rates, the smoothed loss, where it stops,
// what it suggests (torch-free), and `trainer tune lr` end to end.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "experiment_files.h"
#include "tune/lr_range_curve.h"

using namespace trainer;
using namespace trainer::testing;
namespace fs = std::filesystem;

TEST_CASE("lr range: rates exponentially spaced from the first to the last", "[tune]") {
  const std::vector<double> rates = lr_range_rates(1e-6, 1, 7);
  REQUIRE(rates.size() == 7);
  for (size_t i = 0; i < rates.size(); ++i) CHECK(rates[i] == Approx(std::pow(10.0, -6.0 + static_cast<double>(i))));
}

TEST_CASE("lr range: the loss smoothed as fastai smooths it, and stopped where it runs away", "[tune]") {
  LrRangeCurve curve;
  REQUIRE(add_lr_range_point(curve, 1e-5, 2.0));
  CHECK(curve.points[0].smoothed == Approx(2.0));  // bias-corrected: the first point is its own average
  REQUIRE(add_lr_range_point(curve, 1e-4, 1.0));
  // (0.98 * 0.02 * 2 + 0.02 * 1) / (1 - 0.98^2)
  CHECK(curve.points[1].smoothed == Approx((0.98 * 0.02 * 2.0 + 0.02 * 1.0) / (1 - 0.98 * 0.98)));
  for (int i = 0; i < 20; ++i) REQUIRE(add_lr_range_point(curve, 1e-3, 0.5));
  const size_t kept = curve.points.size();
  CHECK_FALSE(add_lr_range_point(curve, 1.0, 1e6));  // past 4 x the lowest smoothed loss
  CHECK(curve.diverged);
  CHECK(curve.points.size() == kept);
  LrRangeCurve nan;
  CHECK_FALSE(add_lr_range_point(nan, 1e-3, std::nan("")));
  CHECK(nan.diverged);
}

TEST_CASE("lr range: the suggestion is where the smoothed loss falls fastest", "[tune]") {
  // A loss that falls most steeply at 10^-3 (a logistic step in log10 lr), then rises.
  LrRangeCurve curve;
  const std::vector<double> rates = lr_range_rates(1e-7, 1, 71);
  for (double lr : rates) {
    const double x = std::log10(lr);
    curve.points.push_back({lr, 0, 1.0 / (1.0 + std::exp(4 * (x + 3))) + (x > -1 ? (x + 1) : 0)});
  }
  suggest_lr(curve);
  CHECK(std::log10(curve.suggested_lr) == Approx(-3).margin(0.11));
  CHECK(std::log10(curve.lowest_loss_lr) == Approx(-1).margin(0.3));
  // A loss that never falls: nothing to suggest.
  LrRangeCurve flat;
  for (double lr : rates) flat.points.push_back({lr, 0, 1.0 + lr});
  suggest_lr(flat);
  CHECK(flat.suggested_lr == 0);
  CHECK_THAT(format_lr_range_text(flat), Catch::Contains("no suggestion"));
}

TEST_CASE("trainer tune lr suggests a rate from the experiment's own steps and writes no run", "[tune][e2e]") {
  const std::string dir = fresh_dir("tune-lr");
  MlpExperiment spec;
  spec.extra = "optimizer: {name: sgd, lr: 0.01}\ntrain: {batch_size: 16}\n";
  const std::string experiment = write_mlp_experiment(dir, spec);
  const auto text = run_trainer({"tune", "lr", experiment, "--steps", "40", "-o", dir + "/lr.html"}, dir);
  INFO(text.err);
  REQUIRE(text.exit_code == 0);
  CHECK_THAT(text.out, Catch::Contains("learning-rate range test: ") && Catch::Contains("use it with: --set optimizer.lr="));
  CHECK_THAT(read_text(dir + "/lr.html"), Catch::Contains("<svg") && Catch::Contains("smoothed loss"));
  CHECK_FALSE(fs::exists(dir + "/runs"));

  // SGD past any sane rate: the test stops where the loss runs away.
  const auto json = run_trainer({"tune", "lr", experiment, "--steps", "60", "--max-lr", "1e6", "--json"}, dir);
  REQUIRE(json.exit_code == 0);
  const auto result = nlohmann::json::parse(json.out);
  CHECK(result["diverged"] == true);
  CHECK(result["steps"].get<int>() < 60);
  REQUIRE(result["suggested_lr"].is_number());
  CHECK(result["suggested_lr"].get<double>() > 1e-7);
  CHECK(result["suggested_lr"].get<double>() < 1e6);

  CHECK(run_trainer({"tune", "lr", experiment, "--min-lr", "1", "--max-lr", "0.1"}, dir).exit_code == 2);
  CHECK(run_trainer({"tune", "speed", experiment}, dir).exit_code == 2);
}
