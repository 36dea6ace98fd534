#pragma once
// Assembles batches on background threads, ahead of the training step, into a
// bounded queue; the step takes them in order. How long the step waited is
// measured, so starvation shows in every epoch record.
#include <torch/torch.h>

#include <condition_variable>
#include <exception>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "data/dataset.h"
#include "spec/experiment_config.h"

namespace trainer {

struct Batch {
  torch::Tensor inputs;  // undefined while `deferred` holds what makes them (BatchFeed finishes it)
  torch::Tensor labels;
  std::shared_ptr<const DeferredDegradation> deferred;
  int64_t size() const { return labels.size(0); }
};

struct LoaderOptions {
  int64_t batch_size = 32;
  int64_t workers = 1;
  int64_t prefetch = 4;
  int64_t max_batches = 0;  // 0: all of them
  // When given, batch i holds the next batch_sizes[i] samples of the order
  // (a rank's shards, which may differ in size or be empty); batch_size is
  // then unused.
  std::vector<int64_t> batch_sizes;
  // Seeds the random choices of a data set that makes its samples (a
  // SampleSource): the training epoch, or 0 for validation's fixed samples.
  int64_t epoch = 0;
  // Assemble batches in pinned (page-locked) memory, from which a GPU copies
  // without the host waiting (BatchFeed). Needs a LibTorch with CUDA.
  bool pin_memory = false;
};

// Where each batch starts in an order of `samples`, plus the end: the cut
// BatchLoader and BatchFeed share (`options`' batch_size or batch_sizes,
// then max_batches).
std::vector<int64_t> batch_begins(int64_t samples, const LoaderOptions& options);

// The experiment's loader settings (workers, prefetch); the caller says how
// the batches are cut.
LoaderOptions loader_options(const DataConfig& data);

class BatchLoader {
 public:
  // Visits `data` in `order`; the last batch may be smaller.
  BatchLoader(const TensorDataset& data, std::vector<int64_t> order, const LoaderOptions& options);
  ~BatchLoader();
  BatchLoader(const BatchLoader&) = delete;
  BatchLoader& operator=(const BatchLoader&) = delete;

  // The next batch in order, or nothing after the last one.
  std::optional<Batch> next();
  int64_t batch_count() const { return batch_count_; }
  // Seconds next() spent blocked, waiting for a worker.
  double wait_seconds() const { return wait_seconds_; }

 private:
  void work();
  void keep_error(int64_t batch_index, std::exception_ptr error);
  Batch assemble(int64_t batch_index) const;

  const TensorDataset& data_;
  std::vector<int64_t> order_;
  LoaderOptions options_;
  int64_t batch_count_ = 0;
  std::vector<int64_t> batch_begins_;  // offset of each batch in order_, plus the end

  std::mutex mutex_;
  std::condition_variable ready_changed_;  // a batch was added
  std::condition_variable space_freed_;    // the consumer took one
  std::map<int64_t, Batch> ready_;
  std::exception_ptr worker_error_;  // the failure of the earliest batch that failed
  int64_t failed_batch_ = -1;
  int64_t next_to_assemble_ = 0;
  int64_t next_to_hand_out_ = 0;
  bool stopping_ = false;
  double wait_seconds_ = 0;
  std::vector<std::thread> workers_;
};

}  // namespace trainer
