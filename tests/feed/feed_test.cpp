// Batches to the step: the epoch order, the prefetching loader, the device
// feed and where a data set is held.
#include <catch2/catch.hpp>

#include <chrono>
#include <optional>
#include <set>
#include <stdexcept>
#include <thread>
#include <utility>
#include <vector>

#include "data/dataset.h"
#include "feed/batch_feed.h"
#include "feed/batch_loader.h"
#include "feed/data_placement.h"
#include "feed/sampler.h"
#include "util/error.h"

using namespace trainer;

TEST_CASE("epoch order: a seeded permutation that changes every epoch", "[data][sampler]") {
  const auto first = epoch_order(1000, 42, 1, true);
  CHECK(first == epoch_order(1000, 42, 1, true));
  CHECK(first != epoch_order(1000, 42, 2, true));
  CHECK(first != epoch_order(1000, 43, 1, true));
  CHECK(std::set<int64_t>(first.begin(), first.end()).size() == 1000);
  const auto plain = epoch_order(5, 42, 1, false);
  CHECK(plain == std::vector<int64_t>{0, 1, 2, 3, 4});
}

namespace {

// Fails on sample 5: with the given error, as a loader thread sees it.
template <typename Failure>
class FailingSource : public SampleSource {
  SampleBatch make_batch(const int64_t* ids, int64_t count, int64_t, bool) const override {
    for (int64_t i = 0; i < count; ++i)
      if (ids[i] == 5) throw Failure("sample 5 failed");
    auto rows = torch::zeros({count, 1});
    return {rows, rows, nullptr};
  }
};

template <typename Failure>
TensorDataset failing_data() {
  const auto ids = torch::arange(20, torch::kInt64);
  return {ids, ids, std::make_shared<FailingSource<Failure>>()};
}

}  // namespace

TEST_CASE("a loader thread's failure reaches next(): out of memory stays out of memory", "[data][loader]") {
  LoaderOptions options;
  options.batch_size = 4;
  options.workers = 2;
  const std::vector<int64_t> order = epoch_order(20, 1, 1, false);
  SECTION("past the memory budget: OutOfMemoryError, exit code 6, whichever thread allocated") {
    const auto data = failing_data<OutOfMemoryError>();
    BatchLoader loader(data, order, options);
    CHECK(loader.next().has_value());  // samples 0-3
    CHECK_THROWS_AS(loader.next(), OutOfMemoryError);
  }
  SECTION("any other failure: a data error naming the batch") {
    const auto data = failing_data<std::runtime_error>();
    BatchLoader loader(data, order, options);
    CHECK(loader.next().has_value());
    CHECK_THROWS_WITH(loader.next(), Catch::Contains("assembling batch 1 failed: sample 5 failed"));
    BatchLoader again(data, order, options);
    CHECK(again.next().has_value());
    CHECK_THROWS_AS(again.next(), DataError);
  }
}

TEST_CASE("the prefetching loader hands out every batch in order", "[data][loader]") {
  TensorDataset data{torch::arange(103, torch::kFloat32).unsqueeze(1), torch::arange(103, torch::kInt64)};
  const auto order = epoch_order(103, 1, 1, true);
  for (int64_t workers : {1, 3}) {
    LoaderOptions options;
    options.batch_size = 10;
    options.workers = workers;
    options.prefetch = 2;
    BatchLoader loader(data, order, options);
    CHECK(loader.batch_count() == 11);
    std::vector<int64_t> seen;
    while (auto batch = loader.next()) {
      CHECK(torch::equal(batch->inputs.squeeze(1).to(torch::kInt64), batch->labels));
      for (int64_t i = 0; i < batch->size(); ++i) seen.push_back(batch->labels[i].item<int64_t>());
    }
    CHECK(seen == order);  // the last batch holds the remaining 3
  }
  SECTION("max_batches cuts the epoch short; destruction mid-epoch does not hang") {
    LoaderOptions options;
    options.batch_size = 10;
    options.max_batches = 4;
    BatchLoader loader(data, order, options);
    CHECK(loader.batch_count() == 4);
    CHECK(loader.next().has_value());
  }
}

namespace {

// The batches a feed hands out, as host tensors, in order.
std::vector<Batch> fed_batches(const TensorDataset& data, const std::vector<int64_t>& order,
                               const LoaderOptions& options, const torch::Device& device) {
  BatchFeed feed(data, order, options, device);
  std::vector<Batch> batches;
  while (auto batch = feed.next()) {
    CHECK(batch->inputs.device() == device);
    batches.push_back({batch->inputs.cpu(), batch->labels.cpu(), nullptr});
  }
  CHECK(static_cast<int64_t>(batches.size()) == feed.batch_count());
  return batches;
}

void check_same_batches(const std::vector<Batch>& got, const std::vector<Batch>& expected) {
  REQUIRE(got.size() == expected.size());
  for (size_t i = 0; i < got.size(); ++i) {
    CHECK(torch::equal(got[i].inputs, expected[i].inputs));
    CHECK(torch::equal(got[i].labels, expected[i].labels));
  }
}

TensorDataset counting_data(int64_t samples) {
  return {torch::arange(samples * 3, torch::kFloat32).reshape({samples, 3}), torch::arange(samples, torch::kInt64)};
}

// A source that takes `delay` to make each batch, as decoding or cutting
// patches does: the loader's one thread keeps the step waiting.
struct SlowSource : SampleSource {
  std::chrono::milliseconds delay;
  explicit SlowSource(std::chrono::milliseconds d) : delay(d) {}

 private:
  SampleBatch make_batch(const int64_t* ids, int64_t count, int64_t, bool) const override {
    std::this_thread::sleep_for(delay);
    const torch::Tensor rows = torch::from_blob(const_cast<int64_t*>(ids), {count}, torch::kInt64).clone();
    return {rows.to(torch::kFloat32).unsqueeze(1), rows, nullptr};
  }
};

TensorDataset slow_data(int64_t samples, std::chrono::milliseconds delay) {
  const torch::Tensor ids = torch::arange(samples, torch::kInt64);
  return {ids, ids, std::make_shared<SlowSource>(delay)};
}

}  // namespace

TEST_CASE("the batch feed hands a CPU step the loader's batches, cut the same way", "[data][feed]") {
  const TensorDataset data = counting_data(53);
  const auto order = epoch_order(53, 3, 2, true);
  LoaderOptions options;
  options.batch_sizes = {10, 10, 10, 10, 10, 3};
  options.max_batches = 5;
  BatchLoader loader(data, order, options);
  std::vector<Batch> expected;
  while (auto batch = loader.next()) expected.push_back(*batch);
  REQUIRE(expected.size() == 5);
  check_same_batches(fed_batches(data, order, options, torch::kCPU), expected);
}

TEST_CASE("the batch feed reports the GPU's idle time only on a GPU", "[data][feed]") {
  const TensorDataset data = slow_data(12, std::chrono::milliseconds(5));
  LoaderOptions options;
  options.batch_size = 4;
  BatchFeed feed(data, epoch_order(12, 1, 1, true), options, torch::kCPU);
  while (feed.next()) {
  }
  // A CPU has no queue to run ahead on: the host's wait is the cost.
  CHECK(feed.wait_seconds() > 0);
  CHECK_FALSE(feed.device_idle_seconds().has_value());
}

TEST_CASE("data.on_device keeps a CPU run's data where it is, and says so only when true asked otherwise",
          "[data][feed]") {
  DataSplits data{counting_data(8), counting_data(4), {}, {}};
  CHECK_THAT(place_data(data, DataPlacement::kDevice, torch::kCPU, 1 << 30),
             Catch::Equals("data: kept in host memory, which cpu reads directly (data.on_device: true applies to GPU "
                           "runs)"));
  CHECK(place_data(data, DataPlacement::kAuto, torch::kCPU, 1 << 30).empty());
  CHECK(place_data(data, DataPlacement::kHost, torch::kCPU, 1 << 30).empty());
  CHECK(data.train.inputs.device().is_cpu());
  CHECK(held_bytes(data.train) == 8 * 3 * 4 + 8 * 8);
}

TEST_CASE("GPU: batches gathered on the GPU or copied ahead from pinned memory are the loader's", "[data][feed][gpu]") {
  if (!torch::cuda::is_available()) {
    WARN("SKIPPED: needs a CUDA GPU");
    return;
  }
  const torch::Device gpu(torch::kCUDA, 0);
  const TensorDataset host = counting_data(1001);
  const auto order = epoch_order(1001, 5, 1, true);
  LoaderOptions options;
  options.batch_size = 64;
  options.workers = 2;
  BatchLoader loader(host, order, options);
  std::vector<Batch> expected;
  while (auto batch = loader.next()) expected.push_back(*batch);
  // From host memory: pinned batches on a copy stream, one ahead.
  check_same_batches(fed_batches(host, order, options, gpu), expected);
  // Held on the GPU (what data.on_device does), the budget deciding.
  DataSplits splits{counting_data(1001), counting_data(10), {}, {}};
  const std::string placed = place_data(splits, DataPlacement::kAuto, gpu, int64_t{1} << 30);
  CHECK_THAT(placed, Catch::Contains("held on gpu:0"));
  REQUIRE(held_on_device(splits.train, gpu));
  check_same_batches(fed_batches(splits.train, order, options, gpu), expected);
  // Too large for a quarter of the budget: kept in host memory.
  DataSplits large{counting_data(1001), counting_data(10), {}, {}};
  CHECK_THAT(place_data(large, DataPlacement::kAuto, gpu, 4096), Catch::Contains("kept in host memory"));
  CHECK_FALSE(held_on_device(large.train, gpu));
}

TEST_CASE("GPU: the feed's idle time is the GPU's, not the host's wait", "[data][feed][gpu]") {
  if (!torch::cuda::is_available()) {
    WARN("SKIPPED: needs a CUDA GPU");
    return;
  }
  const torch::Device gpu(torch::kCUDA, 0);
  // Each batch takes the loader's one thread 30 ms.
  const TensorDataset data = slow_data(24, std::chrono::milliseconds(30));
  LoaderOptions options;
  options.batch_size = 4;
  options.prefetch = 1;
  const auto order = epoch_order(24, 1, 1, true);
  const torch::Tensor a = torch::randn({8192, 8192}, torch::TensorOptions(gpu));
  // busy: whether each step queues some 60 ms or more of GPU work (40
  // products of 8192 x 8192 matrices; TF32 or not) before it asks
  // for its next batch, so that the host's waits pass while the GPU works.
  const auto feed_all = [&](bool busy) {
    BatchFeed feed(data, order, options, gpu);
    torch::Tensor sink = torch::zeros({}, torch::TensorOptions(gpu));
    while (true) {
      if (busy)
        for (int i = 0; i < 40; ++i) sink += torch::mm(a, a).sum() * 0;
      if (!feed.next()) break;
    }
    torch::cuda::synchronize();
    const std::optional<double> idle = feed.device_idle_seconds();
    REQUIRE(idle.has_value());
    return std::make_pair(feed.wait_seconds(), *idle);
  };
  const auto [idle_wait, idle_gpu] = feed_all(false);
  const auto [busy_wait, busy_gpu] = feed_all(true);
  INFO("GPU idle: host waited " << idle_wait << " s, GPU idle " << idle_gpu << " s; GPU busy: host waited "
                                << busy_wait << " s, GPU idle " << busy_gpu << " s");
  // Nothing queued: the GPU idles through every wait.
  CHECK(idle_wait > 0.1);
  CHECK(idle_gpu >= 0.8 * idle_wait);
  // Work queued ahead: the host still waits, the GPU hardly.
  CHECK(busy_wait > 0.05);
  CHECK(busy_gpu < 0.25 * busy_wait);
}
