#pragma once
// `trainer tune FILE`: the settings that decide a training step's speed,
// measured on this machine for this experiment, one setting at a time (each
// tried with the best of the ones before), and what it found. Torch-free:
// the plan and the report; the measuring is speed_tune.h.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trainer {

// One setting and the values to try, the experiment's own first.
struct SpeedKnob {
  std::string key;                  // "cpu_threads", "train.batch_size"
  std::vector<std::string> values;  // as --set takes them
  bool changes_training = false;    // precision, batch size: not only the speed
};

// What the device and the experiment allow: the knobs in the order tried.
struct SpeedPlanInput {
  bool gpu = false;
  int cores = 1;               // the cores this process may use
  std::string threads;         // the experiment's cpu_threads, as text ("0": all)
  std::string precision;       // its precision: fp32, bf16, fp16
  std::string workers;         // data.workers
  int64_t batch_size = 32;     // 0: auto (then not varied)
  int64_t train_size = 0;      // batches larger than the data are one batch
  bool channels_last = false;  // gpu.channels_last
  bool cudnn_benchmark = true;
  bool fused_kernels = false;  // gpu.fused_kernels
  bool has_fused_kernels = false;  // the build has them (else the key changes nothing)
};
std::vector<SpeedKnob> plan_speed_knobs(const SpeedPlanInput& input);

struct SpeedTrial {
  std::string key, value;
  std::optional<double> samples_per_second;  // empty: it failed (why says how)
  std::string why;
  bool chosen = false;  // the value kept for this setting
};

struct SpeedTuneResult {
  std::string experiment_file;  // as given
  std::string device;           // "cpu", "cuda:0"
  int64_t steps = 0, warmup = 0;
  std::vector<SpeedTrial> trials;                                // in the order measured
  std::vector<std::pair<std::string, std::string>> chosen;      // key -> value, every knob
  std::vector<std::string> changes_training;                    // chosen keys that change what is computed
  // samples/s of the experiment as it is and of the tuned settings,
  // measured again one after the other at the end.
  double start_speed = 0, tuned_speed = 0;
};

// A value is kept over the setting's current one only when it is faster by
// more than this share: two measurements of the same setting differ by a
// few per cent.
constexpr double kSpeedMargin = 0.03;

// The table printed: setting, value, samples/s, and which value was kept;
// then the experiment as it is against the tuned settings.
std::string format_speed_table(const SpeedTuneResult& result);
// The file written: `extends:` the experiment, the value kept for every
// setting, and the table as comments, after a first line starting with
// kTunedFileMark (what tells an earlier tuned file, which tune replaces).
inline constexpr std::string_view kTunedFileMark = "# Written by trainer tune ";
std::string format_tuned_yaml(const SpeedTuneResult& result, const std::string& extends_path);

// "precision changes" or "precision and train.batch_size change": the
// settings that alter what a run computes, as the subject of a sentence.
std::string settings_that_change(const std::vector<std::string>& settings);
std::string format_speed_json(const SpeedTuneResult& result);

}  // namespace trainer
