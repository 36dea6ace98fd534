#include "bench/training_report.h"

#include <cstdio>

#include <nlohmann/json.hpp>

#include "util/json.h"
#include "util/text.h"

namespace trainer {
namespace {

constexpr double kFeedMargin = 1.25;

// "12.3 GFLOP/s", "950 FLOP/s".
std::string flops_text(double per_second) {
  const std::string count = format_count_si(per_second);
  return count + (count.find(' ') == std::string::npos ? " " : "") + "FLOP/s";
}

}  // namespace

std::string format_training_bench_text(const TrainingBenchResult& r) {
  char text[1024];
  const double total = r.times.total();
  auto share = [&](double part) { return total > 0 ? 100.0 * part / total : 0.0; };
  const std::string budget = r.memory_budget_bytes > 0 ? " of a " + format_mib(r.memory_budget_bytes) + " budget" : "";
  std::snprintf(text, sizeof text,
                "training step of %s on %s, batch %lld, %s, %lld steps after warm-up\n"
                "steps/s %.2f, samples/s %.0f\n"
                "step time: data %.1f%%, forward %.1f%%, backward %.1f%%, optimizer %.1f%%, gradient sync 0%% (one "
                "process)\n"
                "peak memory %s%s\n",
                r.experiment.c_str(), r.device.c_str(), static_cast<long long>(r.batch_size), r.precision.c_str(),
                static_cast<long long>(r.steps), r.steps_per_second(), r.samples_per_second(), share(r.times.data),
                share(r.times.forward), share(r.times.backward), share(r.times.optimizer),
                format_mib(r.peak_memory_bytes).c_str(), budget.c_str());
  std::string out = text;
  if (r.forward_multiply_adds > 0)
    out += "model arithmetic: " + format_count_si(static_cast<double>(r.forward_multiply_adds)) +
           " multiply-adds a sample forward, about three times that with backward: " +
           flops_text(r.model_flops_per_second(r.samples_per_second())) + "\n";
  if (r.graphed_wall_seconds > 0) {
    const double graphed = static_cast<double>(r.steps) / r.graphed_wall_seconds;
    const double samples = graphed * static_cast<double>(r.batch_size);
    std::snprintf(text, sizeof text, "CUDA graph (train.cuda_graph): steps/s %.2f, samples/s %.0f, %.2fx the eager steps",
                  graphed, samples, graphed / r.steps_per_second());
    out += text;
    if (r.forward_multiply_adds > 0) out += ", " + flops_text(r.model_flops_per_second(samples));
    out += "\n";
  } else if (!r.graph_note.empty()) {
    out += "CUDA graph (train.cuda_graph): not measured: " + r.graph_note + "\n";
  }
  if (r.feed_seconds > 0) {
    const double ratio = r.samples_per_second() > 0 ? r.feed_samples_per_second() / r.samples_per_second() : 0.0;
    std::snprintf(text, sizeof text, "input pipeline alone: samples/s %.0f, %.2fx the steps' (data.workers %lld)",
                  r.feed_samples_per_second(), ratio, static_cast<long long>(r.data_workers));
    out += text;
    // Below this margin the pipeline's jitter (a slow photo, a busy core)
    // makes steps wait, though on average it keeps up.
    if (ratio < kFeedMargin) out += ": too close to the steps' rate, they may wait for data; raise data.workers";
    out += "\n";
  }
  if (r.max_batch > 0 && r.max_batch_is_data_size)
    out += "largest batch that fits the budget: " + std::to_string(r.max_batch) +
           ", the whole training set (the data set capped the search; the budget may hold larger batches)\n";
  else if (r.max_batch > 0)
    out += "largest batch that fits the budget: " + std::to_string(r.max_batch) + "\n";
  return out;
}

std::string format_training_bench_json(const TrainingBenchResult& r) {
  nlohmann::ordered_json json;
  json["benchmark"] = "training";
  json["experiment"] = r.experiment;
  json["device"] = r.device;
  json["precision"] = r.precision;
  json["batch_size"] = r.batch_size;
  json["steps"] = r.steps;
  json["steps_per_second"] = json_number(r.steps_per_second());
  json["samples_per_second"] = json_number(r.samples_per_second());
  json["seconds"] = {{"data", json_number(r.times.data)},
                     {"forward", json_number(r.times.forward)},
                     {"backward", json_number(r.times.backward)},
                     {"optimizer", json_number(r.times.optimizer)},
                     {"gradient_sync", json_number(r.times.all_reduce)}};
  json["graphed_steps_per_second"] = r.graphed_wall_seconds > 0
                                         ? nlohmann::ordered_json(json_number(static_cast<double>(r.steps) /
                                                                              r.graphed_wall_seconds))
                                         : nullptr;
  json["forward_multiply_adds"] = r.forward_multiply_adds > 0 ? nlohmann::ordered_json(r.forward_multiply_adds) : nullptr;
  json["model_flops_per_second"] =
      r.forward_multiply_adds > 0
          ? nlohmann::ordered_json(json_number(r.model_flops_per_second(r.samples_per_second())))
          : nullptr;
  json["input_samples_per_second"] =
      r.feed_seconds > 0 ? nlohmann::ordered_json(json_number(r.feed_samples_per_second())) : nullptr;
  json["peak_memory_bytes"] = r.peak_memory_bytes;
  json["memory_budget_bytes"] = r.memory_budget_bytes;
  json["max_batch"] = r.max_batch > 0 ? nlohmann::ordered_json(r.max_batch) : nullptr;
  // What stopped the search: "memory" (the budget), or "data" (the whole training set fitted).
  json["max_batch_limited_by"] =
      r.max_batch > 0 ? nlohmann::ordered_json(r.max_batch_is_data_size ? "data" : "memory") : nullptr;
  return json_line(json);
}

}  // namespace trainer
