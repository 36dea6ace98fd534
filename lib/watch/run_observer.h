#pragma once
// What a training run reports as it goes, to whatever records it besides the
// epoch log (the TensorBoard event file). Rank 0's observers only. Torch-free.
#include <cstdint>
#include <string>
#include <vector>

#include "tensorboard/event_writer.h"
#include "runs/epoch_log.h"

namespace trainer {

// The training steps since the previous point (`log.scalars_every` of them).
struct StepPoint {
  int64_t step = 0;   // the run's global step
  int64_t epoch = 0;
  double loss = 0;    // mean over the interval's samples, this rank's batches
  double lr = 0;
  double samples_per_second = 0;  // this rank's samples
  double loss_scale = 0;          // 0: no loss scaling
};

// A picture for the record: e.g. "valid-0/input".
struct NamedImage {
  std::string name;
  EncodedImage image;
};

class RunObserver {
 public:
  virtual ~RunObserver() = default;
  // Once, before the first step this process trains: `global_step` steps are
  // done already (a resumed run), and `config_yaml` is the resolved config.
  virtual void on_start(int64_t /*global_step*/, const std::string& /*config_yaml*/) {}
  virtual void on_step(const StepPoint& /*point*/) {}
  // After each epoch's record, at the global step that ends the epoch.
  virtual void on_epoch(const EpochRecord& /*record*/, int64_t /*global_step*/) {}
  virtual void on_images(const std::vector<NamedImage>& /*images*/, int64_t /*global_step*/) {}
  // Once the run has ended (run.json holds its final status).
  virtual void on_end() {}
};

}  // namespace trainer
