// The matrix-product benchmark and `trainer bench FILE`, through the binary.
#include <catch2/catch.hpp>

#include <filesystem>

#include "bench/matmul_report.h"
#include "bench/training_report.h"
#include "cli_runner.h"
#include "experiment_files.h"
#include "util/error.h"

using namespace trainer;
using namespace trainer::testing;
namespace fs = std::filesystem;

TEST_CASE("matmul shapes are MxKxN", "[device][bench]") {
  const MatmulShape shape = parse_matmul_shape("10000x100x100000");
  CHECK(shape.m == 10000);
  CHECK(shape.k == 100);
  CHECK(shape.n == 100000);
  CHECK(shape.flops() == 2e11);
  for (const char* bad : {"10x10", "10x10x", "x1x1", "1x1x1x1", "0x1x1", "axbxc", ""})
    CHECK_THROWS_AS(parse_matmul_shape(bad), UsageError);
}

TEST_CASE("trainer bench times a matrix product and prints a checksum", "[device][bench][e2e]") {
  const std::string dir = fresh_dir("bench");
  const auto text = run_trainer({"bench", "--shape", "300x64x500", "--repeat", "3"}, dir);
  INFO(text.err);
  REQUIRE(text.exit_code == 0);
  CHECK_THAT(text.out, Catch::Contains("matmul A(300x64) @ B(64x500), fp32, median of 3 repeats") &&
                           Catch::Contains("GFLOP/s") && Catch::Contains("checksum"));
  const auto first = run_trainer({"bench", "--shape", "300x64x500", "--repeat", "2", "--json"}, dir);
  const auto second = run_trainer({"bench", "--shape", "300x64x500", "--repeat", "2", "--json"}, dir);
  REQUIRE(first.exit_code == 0);
  REQUIRE(second.exit_code == 0);
  // Same inputs, same device: the same product, to the last bit.
  CHECK(number_after(first.out, "checksum") == number_after(second.out, "checksum"));
  CHECK(number_after(first.out, "gflops") > 0);
  // Each entry is a rand() product sum: about m*n*k/4.
  CHECK(number_after(first.out, "checksum") == Approx(300.0 * 500 * 64 / 4).epsilon(0.05));

  SECTION("bf16 agrees with fp32 to bf16's precision") {
    const auto bf16 = run_trainer({"bench", "--shape", "300x64x500", "--repeat", "1", "--dtype", "bf16", "--json"}, dir);
    INFO(bf16.err);
    REQUIRE(bf16.exit_code == 0);
    CHECK(number_after(bf16.out, "checksum") == Approx(number_after(first.out, "checksum")).epsilon(0.02));
  }
  SECTION("a GPU where there is none is a device error") {
    const auto gpu = run_trainer({"bench", "--device", "gpu:99", "--shape", "8x8x8"}, dir);
    CHECK(gpu.exit_code == 5);
    CHECK_THAT(gpu.err, Catch::Contains("gpu:99"));
  }
  SECTION("a shape too large for this machine is refused before anything is allocated") {
    // 2.7 x 10^11 fp32 elements: about 1 TiB, beyond what a test machine has.
    const auto huge = run_trainer({"bench", "--shape", "300000x300000x300000", "--repeat", "1"}, dir);
    CHECK(huge.exit_code == 6);
    CHECK_THAT(huge.err, Catch::Contains("--shape 300000x300000x300000 in fp32 needs 1005.8 GiB on cpu for A, B and C") &&
                             Catch::Contains("is available there") && Catch::Contains("hint: a smaller --shape"));
    CHECK_THAT(huge.err, !Catch::Contains("train.batch_size"));
    const auto absurd = run_trainer({"bench", "--shape", "9000000000x9000000000x9000000000"}, dir);
    CHECK(absurd.exit_code == 6);
    CHECK_THAT(absurd.err, Catch::Contains("needs more than 8 EiB on cpu"));
  }
  SECTION("malformed options are usage errors") {
    CHECK(run_trainer({"bench", "--shape", "8x8"}, dir).exit_code == 2);
    CHECK(run_trainer({"bench", "--dtype", "fp64", "--shape", "8x8x8"}, dir).exit_code == 2);
    CHECK(run_trainer({"bench", "--device", "tpu:0", "--shape", "8x8x8"}, dir).exit_code == 5);
  }
}

TEST_CASE("bench's report says when the input pipeline alone is barely faster than the steps", "[bench]") {
  TrainingBenchResult result;
  result.experiment = "deblur";
  result.device = "cuda:0";
  result.precision = "bf16";
  result.batch_size = 8;
  result.steps = 20;
  result.wall_seconds = 0.4;  // 400 samples/s
  result.data_workers = 4;
  result.feed_samples = 800;
  result.feed_seconds = 0.5;  // 1600 samples/s
  CHECK_THAT(format_training_bench_text(result),
             Catch::Contains("input pipeline alone: samples/s 1600, 4.00x the steps' (data.workers 4)\n"));
  result.feed_seconds = 1.8;  // 444 samples/s: jitter would make the steps wait
  CHECK_THAT(format_training_bench_text(result),
             Catch::Contains("input pipeline alone: samples/s 444, 1.11x the steps' (data.workers 4): too close to the "
                             "steps' rate, they may wait for data; raise data.workers\n"));
  CHECK_THAT(format_training_bench_json(result), Catch::Contains("\"input_samples_per_second\":444.4"));
  result.feed_seconds = 0;  // not measured
  CHECK_THAT(format_training_bench_text(result), !Catch::Contains("input pipeline"));
  CHECK_THAT(format_training_bench_json(result), Catch::Contains("\"input_samples_per_second\":null"));
}

TEST_CASE("trainer bench FILE times training steps without writing a run", "[bench][e2e]") {
  const std::string dir = fresh_dir("bench-training");
  MlpExperiment spec;
  spec.extra = "train: {batch_size: 16}\n";
  const std::string experiment = write_mlp_experiment(dir, spec);
  const auto text = run_trainer({"bench", experiment, "--steps", "5", "--warmup", "1"}, dir);
  INFO(text.err);
  REQUIRE(text.exit_code == 0);
  CHECK_THAT(text.out, Catch::Contains("training step of mlp on cpu, batch 16, fp32, 5 steps") &&
                           Catch::Contains("step time: data") && Catch::Contains("peak memory"));
  CHECK_FALSE(fs::exists(dir + "/runs"));
  const auto json = run_trainer({"bench", experiment, "--steps", "3", "--json"}, dir);
  REQUIRE(json.exit_code == 0);
  CHECK(number_after(json.out, "steps") == 3);
  CHECK(number_after(json.out, "samples_per_second") > 0);
  CHECK(number_after(json.out, "peak_memory_bytes") > 600 * 256 * 4);  // the data set alone
  // One sample's forward pass: 256 -> 2048 and 2048 -> 4 products; three such passes a training sample.
  CHECK(number_after(json.out, "forward_multiply_adds") == 256 * 2048 + 2048 * 4);
  CHECK(number_after(json.out, "model_flops_per_second") ==
        Approx(6.0 * (256 * 2048 + 2048 * 4) * number_after(json.out, "samples_per_second")).epsilon(1e-4));
  CHECK_THAT(text.out, Catch::Contains("model arithmetic: 532 K multiply-adds a sample forward, about three times "
                                       "that with backward: "));
  // The input pipeline alone: rows gathered from memory, far faster than the steps.
  CHECK_THAT(text.out, Catch::Contains("input pipeline alone: samples/s ") && Catch::Contains("(data.workers 1)"));
  CHECK_THAT(text.out, !Catch::Contains("they may wait for data"));
  CHECK(number_after(json.out, "input_samples_per_second") > number_after(json.out, "samples_per_second"));

  SECTION("--find-max-batch finds the largest batch under the budget") {
    const auto found = run_trainer({"bench", experiment, "--steps", "2", "--find-max-batch", "--json", "--set",
                                    "memory_limit=16MiB"},
                                   dir);
    INFO(found.err);
    REQUIRE(found.exit_code == 0);
    const double max_batch = number_after(found.out, "max_batch");
    CHECK(max_batch >= 16);
    CHECK(max_batch < 600);
    CHECK_THAT(found.out, Catch::Contains("\"max_batch_limited_by\":\"memory\""));
    // A budget larger than the data set needs: the search says the data capped it.
    const auto capped = run_trainer({"bench", experiment, "--steps", "2", "--find-max-batch", "--set",
                                     "memory_limit=4GiB"},
                                    dir);
    INFO(capped.err);
    REQUIRE(capped.exit_code == 0);
    CHECK_THAT(capped.out, Catch::Contains("largest batch that fits the budget: 600, the whole training set (the data "
                                           "set capped the search"));
    // One more sample than the largest that fits does not fit.
    const auto over = run_trainer({"bench", experiment, "--steps", "2", "--set", "memory_limit=16MiB", "--set",
                                   "train.batch_size=" + std::to_string(static_cast<int>(max_batch) + 1)},
                                  dir);
    CHECK(over.exit_code == 6);
  }
  SECTION("a hostile experiment name reaches --json intact") {
    if (!system_python_has("json")) {
      WARN("SKIPPED: /usr/bin/python3 cannot import json");
      return;
    }
    // YAML's double-quoted escapes: a quote, a backslash, é and 名 (control
    // characters are refused: names are one line of printable text).
    const auto named = run_trainer({"bench", experiment, "--steps", "1", "--json", "--set",
                                    "experiment.name=\"my \\\"quoted\\\" \\\\ exp caf\\u00e9 \\u540d\""},
                                   dir);
    INFO(named.err);
    REQUIRE(named.exit_code == 0);
    CHECK(python_reads_json(dir, named.out, "d['experiment']") == "my \"quoted\" \\ exp caf\u00e9 \u540d");
  }
  SECTION("--find-max-batch without a budget is a usage error") {
    CHECK(run_trainer({"bench", experiment, "--find-max-batch"}, dir).exit_code == 2);
  }
}
