#include <cstdio>
#include <memory>
#include <sstream>

#include "bench/matmul_bench.h"
#include "bench/training_bench.h"
#include "commands.h"
#include "config/config_loader.h"
#include "util/error.h"

namespace trainer::app {

void add_bench_command(CLI::App& app, Action& selected) {
  struct Args {
    ExperimentArgs experiment;
    int64_t steps = 20;
    int64_t warmup = 3;
    bool find_max_batch = false;
    std::string devices = "cpu";
    std::string shape = "10000x100x100000";
    std::string dtype = "fp32";
    int repeat = 5;
    bool json = false;
  };
  auto args = std::make_shared<Args>();
  auto* command = app.add_subcommand(
      "bench", "Without FILE: matrix-product benchmark per device. With FILE: an experiment's training step, timed");
  args->experiment.add_to(*command, /*file_required=*/false);
  command->add_option("--steps", args->steps, "FILE: timed steps, after the warm-up")
      ->check(CLI::Range(int64_t{1}, int64_t{1000000}))
      ->capture_default_str();
  command->add_option("--warmup", args->warmup, "FILE: untimed steps first")
      ->check(CLI::Range(int64_t{0}, int64_t{1000000}))
      ->capture_default_str();
  command->add_flag("--find-max-batch", args->find_max_batch,
                    "FILE: also find the largest batch that fits memory_limit");
  command->add_option("--device,--devices", args->devices, "cpu, gpu:N, or several: cpu,gpu:0 (side by side)")
      ->capture_default_str();
  command->add_option("--shape", args->shape, "MxKxN: A is MxK, B is KxN")->capture_default_str();
  command->add_option("--dtype", args->dtype, "fp32, bf16 or fp16")->capture_default_str();
  command->add_option("--repeat", args->repeat, "Timed runs after one warm-up; the median is reported")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  command->add_flag("--json", args->json, "One JSON object instead of text");
  command->callback([args, &selected] {
    selected = [args] {
      if (!args->experiment.file.empty()) {
        const ExperimentConfig config = load_experiment(args->experiment.file, args->experiment.overrides);
        TrainingBenchOptions options;
        options.steps = args->steps;
        options.warmup = args->warmup;
        options.find_max_batch = args->find_max_batch;
        options.time_feed = true;
        const auto result = run_training_bench(config.experiment.name, config, options);
        const std::string text =
            args->json ? format_training_bench_json(result) : format_training_bench_text(result);
        std::fwrite(text.data(), 1, text.size(), stdout);
        return;
      }
      const MatmulShape shape = parse_matmul_shape(args->shape);
      std::vector<MatmulResult> results;
      std::stringstream devices(args->devices);
      for (std::string device; std::getline(devices, device, ',');) {
        if (device.empty()) throw UsageError("--device '" + args->devices + "' has an empty entry");
        results.push_back(run_matmul_bench(device, args->dtype, shape, args->repeat));
      }
      const std::string text = args->json ? format_matmul_json(results) : format_matmul_text(results);
      std::fwrite(text.data(), 1, text.size(), stdout);
    };
  });
}

}  // namespace trainer::app
