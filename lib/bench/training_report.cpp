#include "bench/training_report.h"

#include <cstdio>

#include "util/text.h"

namespace trainer {
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
  if (r.max_batch > 0) out += "largest batch that fits the budget: " + std::to_string(r.max_batch) + "\n";
  return out;
}

std::string format_training_bench_json(const TrainingBenchResult& r) {
  char text[1024];
  std::snprintf(text, sizeof text,
                "{\"benchmark\":\"training\",\"experiment\":\"%s\",\"device\":\"%s\",\"precision\":\"%s\",\"batch_size\":%lld,"
                "\"steps\":%lld,\"steps_per_second\":%.9g,\"samples_per_second\":%.9g,\"seconds\":{\"data\":%.9g,"
                "\"forward\":%.9g,\"backward\":%.9g,\"optimizer\":%.9g,\"gradient_sync\":0},"
                "\"peak_memory_bytes\":%lld,\"memory_budget_bytes\":%lld,\"max_batch\":%s}\n",
                r.experiment.c_str(), r.device.c_str(), r.precision.c_str(), static_cast<long long>(r.batch_size),
                static_cast<long long>(r.steps), r.steps_per_second(), r.samples_per_second(), r.times.data,
                r.times.forward, r.times.backward, r.times.optimizer, static_cast<long long>(r.peak_memory_bytes),
                static_cast<long long>(r.memory_budget_bytes),
                r.max_batch > 0 ? std::to_string(r.max_batch).c_str() : "null");
  return text;
}

}  // namespace trainer
