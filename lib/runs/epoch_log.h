#pragma once
// The documented epoch log (README "The epoch log"), a contract lab scripts parse:
//
//   ================================================================================17:13:26
//   Epoch=1,Loss:1.96735072,Accuracy:0.489200622,Valid Loss:1.64124215,Valid Accuracy:0.582813919
//   <empty line>
//
// and the metrics.jsonl line of the same epoch.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "runs/class_scores.h"
#include "runs/step_times.h"

namespace trainer {

struct MetricValue {
  std::string name;  // as printed: "Loss", "Top5 Accuracy"
  std::string key;   // in JSON: "loss", "top5_accuracy"
  float value = 0;
};

struct EpochRecord {
  int64_t epoch = 0;
  std::vector<MetricValue> train;
  std::vector<MetricValue> valid;  // empty when this epoch did not validate
  // A validation's confusion matrix, when the metrics include precision,
  // recall or f1: metrics.jsonl then holds it and each class's scores.
  ConfusionMatrix valid_confusion;
  double lr = 0;
  double seconds = 0;        // the whole epoch, validation included
  double train_seconds = 0;  // the training steps alone
  double samples_per_second = 0;  // training samples / train_seconds
  double data_wait_seconds = 0;  // the host blocked, waiting for the loader's next batch
  // On a GPU: the time the GPU sat idle for want of a batch (the loader's
  // wait and the copy; feed/batch_feed.h), which is what slows training
  // there. The host's wait overstates it: the host runs ahead of the GPU.
  std::optional<double> gpu_idle_for_data_seconds;
  int64_t steps = 0;
  // Runs with dynamic loss scaling: the scale at the epoch's end and the
  // optimizer steps skipped in it (inf/NaN gradients). 0: no loss scaling.
  double loss_scale = 0;
  int64_t skipped_steps = 0;
  // train.cuda_graph runs that capture: the steps of this epoch that replayed
  // the captured step (the others ran eagerly: warm-up, shorter batches).
  bool graphed = false;
  int64_t graphed_steps = 0;
  // Where the training steps' time went, summed over the epoch: measured on
  // `timed_steps` of the `steps` and scaled to all of them (0: not timed).
  StepTimes step_times;
  int64_t timed_steps = 0;
  int64_t peak_memory_bytes = 0;  // this process's device, since the run (or resume) began
  // GPUs with NVML: the card's utilisation (%, mean of the once-a-second
  // samples) and memory used by every process (the peak sample).
  int64_t gpu_samples = 0;
  double gpu_utilization = 0;
  int64_t gpu_memory_used_bytes = 0;
  // train.monitor's verdict, when this epoch measured its figure: a new best
  // (checkpoints/best.pt), the best epoch so far, and whether early stopping
  // ended the run here.
  bool monitored = false;
  bool improved = false;
  int64_t best_epoch = 0;
  bool stopped_early = false;
};

// `clock` is the local time as HH:MM:SS.
std::string format_epoch_record(const EpochRecord& record, const std::string& clock);

// One JSON object on one line, ending in a newline.
std::string format_metrics_json(const EpochRecord& record);

// Adds "<prefix>confusion_matrix" (rows: true classes) and "<prefix>per_class"
// (precision, recall, f1, support: one entry a class) to `json`.
void add_class_scores(nlohmann::ordered_json& json, const ConfusionMatrix& matrix, const std::string& prefix);

// The step-time split of an epoch for the log: "data 1.2%, forward 30.5%,
// backward 52.0%, all-reduce 0.0%, optimizer 16.3% (281 of 281 steps timed)".
std::string describe_step_times(const EpochRecord& record);

// The validation metrics alone, as `trainer eval` prints them:
// "Valid Loss:0.5,Valid Accuracy:0.8\n".
std::string format_valid_line(const std::vector<MetricValue>& valid);

}  // namespace trainer
