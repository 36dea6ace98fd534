#pragma once
// Epoch metrics, accumulated as sums on the device (no host sync per step)
// and read once at the end of the epoch. Exact: sums of loss x count and
// correct counts, divided by the sample count.
#include <torch/torch.h>

#include <string>
#include <utility>
#include <vector>

#include "config/experiment_config.h"
#include "config/metric_spec.h"
#include "train/epoch_log.h"

namespace trainer {

class MetricAccumulator {
 public:
  // `value_range`: the span of pixel values PSNR and SSIM are taken over.
  MetricAccumulator(const LossConfig& loss, const std::vector<std::string>& metrics, bool final_softmax,
                    double value_range = 1.0);

  void reset();
  // `batch_loss` is the batch mean; `output` the network's raw output.
  void add(const torch::Tensor& batch_loss, const torch::Tensor& output, const torch::Tensor& labels);
  int64_t samples() const { return samples_; }
  // Loss first, then the configured metrics, in order.
  std::vector<MetricValue> results() const;
  // Running mean loss and first metric by their JSON keys (one host sync):
  // for the progress bar.
  std::vector<std::pair<std::string, double>> running_values() const;
  // The summed loss (loss x samples) so far (one host sync).
  double loss_sum() const;

  // Whether the loss summed so far is NaN or infinite, as a 0/1 float64
  // tensor of one element on the device (no host sync).
  torch::Tensor loss_non_finite() const;

  // The sums as one tensor, for checkpoints taken mid-epoch.
  torch::Tensor state() const;
  void load_state(const torch::Tensor& state);

 private:
  LossConfig loss_;
  std::vector<MetricSpec> metrics_;
  bool final_softmax_;
  double value_range_;
  torch::Tensor sums_;  // [1 + metrics], float64
  int64_t samples_ = 0;
};

}  // namespace trainer
