#pragma once
// RUN_DIR/steps.jsonl: the per-step points (every log.scalars_every steps),
// one JSON object a line, for the run report and for scripts:
//   {"step":40,"epoch":1,"loss":0.61,"lr":0.001,"samples_per_second":5120.3}
// ("loss_scale" too with fp16 loss scaling). A resumed run drops the lines
// after its checkpoint's step first. Torch-free.
#include <string>

#include "watch/run_observer.h"

namespace trainer {

class StepsLog : public RunObserver {
 public:
  explicit StepsLog(std::string path) : path_(std::move(path)) {}
  void on_start(int64_t global_step, const std::string& config_yaml) override;
  void on_step(const StepPoint& point) override;

 private:
  std::string path_;
};

}  // namespace trainer
