#pragma once
// Epoch metrics, accumulated as sums on the device (no host sync per step)
// and read once at the end of the epoch. Exact: sums of loss x count and
// correct counts, divided by the sample count.
#include <torch/torch.h>

#include <string>
#include <utility>
#include <vector>

#include "device/deferred_read.h"
#include "runs/class_scores.h"
#include "runs/epoch_log.h"
#include "spec/experiment_config.h"
#include "spec/metric_spec.h"
#include "util/stopwatch.h"

namespace trainer {

class MetricAccumulator {
 public:
  // `value_range`: the span of pixel values PSNR and SSIM are taken over.
  // `classes`: the model's class scores, counted in a confusion matrix when
  // the metrics include precision, recall or f1 (then it must be > 0, the
  // same on every rank: the sums are all-reduced as one tensor).
  MetricAccumulator(const LossConfig& loss, const std::vector<std::string>& metrics, bool final_softmax,
                    double value_range = 1.0, int64_t classes = 0);

  void reset();
  // `batch_loss` is the batch mean; `output` the network's raw output.
  void add(const torch::Tensor& batch_loss, const torch::Tensor& output, const torch::Tensor& labels);
  // add() in its two halves: the device's sums (what a CUDA graph captures)
  // and the host's sample count (what each replay adds).
  void add_sums(const torch::Tensor& batch_loss, const torch::Tensor& output, const torch::Tensor& labels);
  void add_samples(int64_t count) { samples_ += count; }
  int64_t samples() const { return samples_; }
  // Loss first, then the configured metrics, in order.
  std::vector<MetricValue> results() const;
  // The confusion matrix counted so far (one host sync); empty unless the
  // metrics include precision, recall or f1.
  ConfusionMatrix confusion() const;
  // Running mean loss and first metric by their JSON keys, for the progress
  // bar. On a CPU they are read at once; on a GPU they are the last snapshot
  // that has reached the host (one is taken at most once a second), so the
  // bar never makes the host wait for the device: empty until the first lands.
  std::vector<std::pair<std::string, double>> running_values();
  // The summed loss (loss x samples) so far (one host sync).
  double loss_sum() const;
  // The same as a one-element float64 tensor where the sums live (no sync).
  torch::Tensor loss_sum_tensor() const { return sums_.slice(0, 0, 1); }

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
  int64_t classes_ = 0;  // > 0: sums_ ends in the classes x classes confusion counts
  // Loss first, then the metrics, from sums already on the host.
  std::vector<MetricValue> results_of(const torch::Tensor& host_sums, int64_t samples) const;

  ConfusionMatrix confusion_of(const torch::Tensor& host_sums) const;

  torch::Tensor sums_;  // [1 + metrics (+ classes^2)], float64: exact counts up to 2^53
  int64_t samples_ = 0;
  // The progress bar's snapshot of the sums on a GPU.
  DeferredRead snapshot_;
  int64_t snapshot_samples_ = 0;
  Stopwatch snapshot_clock_;
  std::vector<std::pair<std::string, double>> running_;
};

}  // namespace trainer
