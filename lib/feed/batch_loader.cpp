#include "feed/batch_loader.h"

#include <cstring>

#include "degrade/deferred_degradation.h"
#include "util/error.h"
#include "util/stopwatch.h"

namespace trainer {

LoaderOptions loader_options(const DataConfig& data) {
  LoaderOptions options;
  options.workers = data.workers;
  options.prefetch = data.prefetch;
  return options;
}

std::vector<int64_t> batch_begins(int64_t samples, const LoaderOptions& options) {
  std::vector<int64_t> begins{0};
  if (options.batch_sizes.empty()) {
    for (int64_t begin = options.batch_size; begin < samples; begin += options.batch_size) begins.push_back(begin);
    if (samples > 0) begins.push_back(samples);
  } else {
    for (int64_t size : options.batch_sizes) begins.push_back(begins.back() + size);
    if (begins.back() > samples) throw std::invalid_argument("BatchLoader: batch sizes exceed the order");
  }
  if (options.max_batches > 0 && static_cast<int64_t>(begins.size()) - 1 > options.max_batches)
    begins.resize(static_cast<size_t>(options.max_batches) + 1);
  return begins;
}

BatchLoader::BatchLoader(const TensorDataset& data, std::vector<int64_t> order, const LoaderOptions& options)
    : data_(data), order_(std::move(order)), options_(options) {
  if (!data_.inputs.is_contiguous() || !data_.labels.is_contiguous())
    throw std::invalid_argument("BatchLoader needs contiguous CPU tensors");
  batch_begins_ = batch_begins(static_cast<int64_t>(order_.size()), options_);
  batch_count_ = static_cast<int64_t>(batch_begins_.size()) - 1;
  for (int64_t i = 0; i < options_.workers; ++i) workers_.emplace_back([this] { work(); });
}

BatchLoader::~BatchLoader() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  space_freed_.notify_all();
  for (auto& worker : workers_) worker.join();
}

namespace {

// Rows `indices` of `source`, copied with memcpy on this thread. index_select
// would parallelise the copy with OpenMP, and an OpenMP team started from a
// loader thread keeps spinning on the cores the training step needs.
torch::Tensor gather_rows(const torch::Tensor& source, const int64_t* indices, int64_t count, bool pinned) {
  auto sizes = source.sizes().vec();
  sizes[0] = count;
  torch::Tensor out = torch::empty(sizes, source.options().pinned_memory(pinned));
  const size_t row_bytes = static_cast<size_t>(source.numel() / std::max<int64_t>(source.size(0), 1)) * source.element_size();
  const auto* from = static_cast<const char*>(source.data_ptr());
  auto* to = static_cast<char*>(out.data_ptr());
  for (int64_t i = 0; i < count; ++i) std::memcpy(to + i * row_bytes, from + indices[i] * row_bytes, row_bytes);
  return out;
}

}  // namespace

Batch BatchLoader::assemble(int64_t batch_index) const {
  const int64_t begin = batch_begins_[static_cast<size_t>(batch_index)];
  const int64_t end = batch_begins_[static_cast<size_t>(batch_index) + 1];
  const int64_t* indices = order_.data() + begin;
  if (data_.source) {
    std::vector<int64_t> ids(static_cast<size_t>(end - begin));
    const int64_t* all_ids = data_.inputs.data_ptr<int64_t>();
    for (size_t i = 0; i < ids.size(); ++i) ids[i] = all_ids[indices[i]];
    SampleBatch made = data_.source->assemble(ids.data(), end - begin, options_.epoch, options_.pin_memory);
    if (!options_.pin_memory) return {std::move(made.inputs), std::move(made.targets), std::move(made.deferred)};
    // pin_memory() returns a tensor the source made pinned as it is.
    return {made.inputs.defined() ? made.inputs.pin_memory() : made.inputs, made.targets.pin_memory(),
            made.deferred ? std::make_shared<const DeferredDegradation>(made.deferred->pinned()) : nullptr};
  }
  return {gather_rows(data_.inputs, indices, end - begin, options_.pin_memory),
          gather_rows(data_.labels, indices, end - begin, options_.pin_memory), nullptr};
}

void BatchLoader::work() {
  // Batches are assembled by one thread each; intra-op parallelism there would
  // only compete with the training step.
  torch::NoGradGuard no_grad;
  while (true) {
    int64_t index;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      space_freed_.wait(lock, [&] {
        return stopping_ || next_to_assemble_ >= batch_count_ ||
               next_to_assemble_ < next_to_hand_out_ + options_.prefetch;
      });
      if (stopping_ || next_to_assemble_ >= batch_count_) return;
      index = next_to_assemble_++;
    }
    try {
      Batch batch = assemble(index);
      std::lock_guard<std::mutex> lock(mutex_);
      ready_.emplace(index, std::move(batch));
    } catch (const OutOfMemoryError&) {
      // The memory budget is shared with the training step: a batch that
      // does not fit is the run's out-of-memory error (exit code 6), the same
      // whichever thread happened to allocate last, not a data error.
      keep_error(index, std::current_exception());
    } catch (const c10::OutOfMemoryError&) {
      keep_error(index, std::current_exception());
    } catch (const std::exception& e) {
      keep_error(index, std::make_exception_ptr(
          DataError("assembling batch " + std::to_string(index) + " failed: " + e.what())));
    }
    ready_changed_.notify_all();
  }
}

void BatchLoader::keep_error(int64_t batch_index, std::exception_ptr error) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!worker_error_ || batch_index < failed_batch_) {
    worker_error_ = std::move(error);
    failed_batch_ = batch_index;
  }
}

std::optional<Batch> BatchLoader::next() {
  std::unique_lock<std::mutex> lock(mutex_);
  if (next_to_hand_out_ >= batch_count_) return std::nullopt;
  const int64_t wanted = next_to_hand_out_;
  auto found = ready_.find(wanted);
  if (found == ready_.end()) {
    Stopwatch waited;
    // A later batch's failure waits its turn: the batches before it are
    // still handed out, so the error always names the first batch that failed.
    const auto failed = [&] { return worker_error_ && failed_batch_ == wanted; };
    ready_changed_.wait(lock, [&] { return failed() || ready_.count(wanted) > 0; });
    wait_seconds_ += waited.seconds();
    if (failed()) std::rethrow_exception(worker_error_);
    found = ready_.find(wanted);
  }
  Batch batch = std::move(found->second);
  ready_.erase(found);
  ++next_to_hand_out_;
  lock.unlock();
  space_freed_.notify_all();
  return batch;
}

}  // namespace trainer
