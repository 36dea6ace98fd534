#pragma once
// The run's TensorBoard record (`log.tensorboard`): an event file in the run
// directory, one per process start (a resumed run adds one, marked as a
// restart so TensorBoard drops the points that were trained again).
//
// Every scalar is at the run's global step, so that per-step and per-epoch
// curves share one axis:
//   step/loss, step/lr, step/samples_per_second, step/loss_scale
//   epoch/<metrics.jsonl key> (loss, accuracy, val_loss, ...), epoch/epoch,
//   epoch/lr, epoch/samples_per_second, epoch/seconds, epoch/data_wait_fraction,
//   epoch/gpu_idle_for_data_fraction (GPU runs)
//   step_time/<phase> (data, forward, backward, all_reduce, optimizer):
//     the phase's share of the epoch's step time
//   memory/peak_mib
// and the text "config" (the resolved config) and images "images/<name>".
// Torch-free.
#include <memory>
#include <string>

#include "watch/run_observer.h"

namespace trainer {

class EventWriter;

class TensorBoardLog : public RunObserver {
 public:
  explicit TensorBoardLog(const std::string& run_dir);
  ~TensorBoardLog() override;

  void on_start(int64_t global_step, const std::string& config_yaml) override;
  void on_step(const StepPoint& point) override;
  void on_epoch(const EpochRecord& record, int64_t global_step) override;
  void on_images(const std::vector<NamedImage>& images, int64_t global_step) override;

  const std::string& path() const;

 private:
  std::unique_ptr<EventWriter> writer_;
};

}  // namespace trainer
