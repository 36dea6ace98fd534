#pragma once
// The step's batches, on the step's device, from wherever the data set is:
//  - held on a GPU (data.on_device, data_placement.h): each batch gathered
//    there by index_select from the epoch's order, which goes to the GPU
//    once; no copy per step and no loader threads;
//  - in host memory, for a GPU: the BatchLoader assembles each batch in
//    pinned memory and the feed copies it to the GPU on a stream of its own,
//    one batch ahead, so that the copy runs while the GPU computes the step
//    before it and the host never waits for a copy;
//  - in host memory, for a CPU: the loader's batches as they are.
#include <torch/torch.h>

#include <c10/core/Event.h>
#include <c10/core/Stream.h>

#include <memory>
#include <optional>
#include <vector>

#include "data/dataset.h"
#include "device/device_timeline.h"
#include "feed/batch_loader.h"

namespace trainer {

class BatchFeed {
 public:
  // Visits `data` in `order`, cut as BatchLoader cuts it; `data` must
  // outlive the feed.
  BatchFeed(const TensorDataset& data, std::vector<int64_t> order, LoaderOptions options,
            const torch::Device& device);
  ~BatchFeed();
  BatchFeed(const BatchFeed&) = delete;
  BatchFeed& operator=(const BatchFeed&) = delete;

  // The next batch on the device (ready for work queued on the device's
  // current stream), or nothing after the last one.
  std::optional<Batch> next();
  int64_t batch_count() const { return batch_count_; }
  // Seconds next() spent blocked, waiting for the loader's threads.
  double wait_seconds() const { return loader_ ? loader_->wait_seconds() : 0.0; }
  // On a GPU (a CUDA build): the seconds the GPU sat idle for want of a
  // batch so far, the figure that says whether the input pipeline slows
  // training there. The host waiting for the loader does not say it: it
  // runs ahead of the GPU, so a wait often passes while the GPU still works
  // through the steps queued before. A pair of timing events brackets each
  // call, one queued as the call begins and one once its batch is ready on
  // the device (the loader's wait and the copy behind it); the time between
  // them on the GPU's clock is idle time, and near zero where the GPU was
  // still busy. Read once the GPU has passed the last mark (an epoch's end:
  // the loop reads its sums there anyway); the marks are cleared. Batches
  // gathered on the device never wait: 0. Nothing on a CPU.
  std::optional<double> device_idle_seconds();

 private:
  struct Staged {
    Batch batch;
    c10::Event copied;
  };
  std::optional<Batch> gather_on_device();
  // Starts copying `host` (pinned) to the device on the copy stream.
  std::optional<Staged> stage(std::optional<Batch> host);

  const TensorDataset& data_;
  torch::Device device_;
  int64_t batch_count_ = 0;
  std::unique_ptr<BatchLoader> loader_;  // null when the data set is on the device
  // On the device: the epoch's order there, and where each batch starts.
  torch::Tensor order_on_device_;
  std::vector<int64_t> begins_;
  int64_t next_batch_ = 0;
  // From host memory to a GPU: the copy stream and the batch copied ahead.
  std::optional<c10::Stream> copy_stream_;
  std::optional<Staged> ahead_;
  bool started_ = false;
  std::unique_ptr<DeviceTimeline> idle_marks_;  // see device_idle_seconds()
};

// Whether `data` lives on `device` (a GPU) whole, so that batches are
// gathered there.
bool held_on_device(const TensorDataset& data, const torch::Device& device);

}  // namespace trainer
