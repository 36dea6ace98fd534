#include "data/sampler.h"

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

}  // namespace trainer
