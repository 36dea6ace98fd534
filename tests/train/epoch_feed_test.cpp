// The epoch's feed, opened ahead: its loader makes the first batches before
// the step asks for one, and they are the epoch's batches in its order.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <thread>

#include "distributed/communicator.h"
#include "feed/sampler.h"
#include "train/epoch_feed.h"

using namespace trainer;

namespace {

// Counts the batches assembled; each sample is its own id.
class CountingSource : public SampleSource {
 public:
  mutable std::atomic<int> assembled{0};

 private:
  SampleBatch make_batch(const int64_t* ids, int64_t count, int64_t, bool) const override {
    auto rows = torch::empty({count, 1});
    for (int64_t i = 0; i < count; ++i) rows[i][0] = static_cast<float>(ids[i]);
    ++assembled;
    return {rows, rows.squeeze(1).to(torch::kInt64), nullptr};
  }
};

}  // namespace

TEST_CASE("an epoch's feed opened ahead makes its first batches before the step asks, in the epoch's order",
          "[data][feed]") {
  auto source = std::make_shared<CountingSource>();
  const auto ids = torch::arange(40, torch::kInt64);
  const TensorDataset train{ids, ids, source};
  ExperimentConfig config;
  config.experiment.seed = 3;
  config.train.batch_size.value = 4;
  config.data.workers = 2;
  config.data.prefetch = 3;
  const auto communicator = make_single_process_communicator();
  const auto feed = open_epoch_feed(config, train, 2, 0, 10, *communicator, torch::kCPU);
  CHECK(feed->epoch == 2);
  CHECK(feed->global_sizes == std::vector<int64_t>(10, 4));
  // No next() yet: the loader's threads fill the prefetch queue on their own.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (source->assembled < 3 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  CHECK(source->assembled == 3);  // and no further than data.prefetch
  const auto order = epoch_order(40, 3, 2, true);
  for (int64_t batch = 0; batch < 10; ++batch) {
    const auto got = feed->feed->next();
    REQUIRE(got.has_value());
    for (int64_t i = 0; i < 4; ++i) CHECK(got->labels[i].item<int64_t>() == order[static_cast<size_t>(batch * 4 + i)]);
  }
  CHECK_FALSE(feed->feed->next().has_value());
}
