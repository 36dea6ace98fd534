#include "feed/sampler.h"

#include <algorithm>
#include <numeric>
#include <random>

namespace trainer {

std::vector<int64_t> epoch_order(int64_t size, int64_t seed, int64_t epoch, bool shuffle) {
  std::vector<int64_t> order(size);
  std::iota(order.begin(), order.end(), 0);
  if (!shuffle) return order;
  // Fisher-Yates written out (std::shuffle's algorithm is unspecified) with
  // a generator seeded from both numbers, so every epoch differs.
  std::seed_seq seeds{static_cast<uint64_t>(seed), static_cast<uint64_t>(epoch), uint64_t{0x5eed}};
  std::mt19937_64 generator(seeds);
  for (int64_t i = size - 1; i > 0; --i) {
    const auto j = static_cast<int64_t>(generator() % static_cast<uint64_t>(i + 1));
    std::swap(order[i], order[j]);
  }
  return order;
}

Shard shard_of(int64_t count, int rank, int world) {
  const int64_t base = count / world;
  const int64_t extra = count % world;
  const int64_t r = rank;
  return {r * base + std::min(r, extra), base + (r < extra ? 1 : 0)};
}

std::vector<int64_t> step_sizes(int64_t count, int64_t global_batch, int64_t max_steps) {
  int64_t steps = (count + global_batch - 1) / global_batch;
  if (max_steps > 0) steps = std::min(steps, max_steps);
  std::vector<int64_t> sizes;
  for (int64_t step = 0; step < steps; ++step) sizes.push_back(std::min(global_batch, count - step * global_batch));
  return sizes;
}

RankBatches rank_batches(const std::vector<int64_t>& order, int64_t per_rank_batch, int rank, int world,
                         int64_t max_steps) {
  RankBatches out;
  const int64_t global_batch = per_rank_batch * world;
  int64_t begin = 0;
  for (const int64_t size : step_sizes(static_cast<int64_t>(order.size()), global_batch, max_steps)) {
    const Shard shard = shard_of(size, rank, world);
    out.order.insert(out.order.end(), order.begin() + begin + shard.begin,
                     order.begin() + begin + shard.begin + shard.size);
    out.batch_sizes.push_back(shard.size);
    out.global_sizes.push_back(size);
    begin += size;
  }
  return out;
}

}  // namespace trainer
