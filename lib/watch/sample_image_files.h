#pragma once
// RUN_DIR/samples/: the newest epoch's sample pictures of an image-to-image
// model (input, output and target of the first validation samples) as PNG
// files, "valid-0/input" written as valid-0-input.png, each replaced whole
// at every epoch's end, so that the run's report (report/html_report.h)
// shows what the model makes of a photo without TensorBoard. A picture that
// cannot be written is warned about, once, and never stops the training.
// Torch-free.
#include <string>
#include <vector>

#include "watch/run_observer.h"

namespace trainer {

class SampleImageFiles : public RunObserver {
 public:
  explicit SampleImageFiles(std::string run_dir) : run_dir_(std::move(run_dir)) {}
  void on_images(const std::vector<NamedImage>& images, int64_t global_step) override;

 private:
  std::string run_dir_;
  bool warned_ = false;
};

// The file name of a sample picture: "valid-0/input" -> "valid-0-input.png".
std::string sample_file_name(const std::string& image_name);

}  // namespace trainer
