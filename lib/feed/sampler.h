#pragma once
// The order in which an epoch visits the training set, and each rank's part
// of it. A pure function of (seed, epoch), so a resumed run sees exactly the
// order the uninterrupted run would have, with no sampler state to save, and
// every rank computes the same order without talking to the others.
#include <cstdint>
#include <vector>

namespace trainer {

std::vector<int64_t> epoch_order(int64_t size, int64_t seed, int64_t epoch, bool shuffle);

// Rank `rank`'s contiguous part of `count` items split over `world` ranks:
// sizes differ by at most one, the first `count % world` ranks take the
// larger; a rank gets nothing only when count < world.
struct Shard {
  int64_t begin = 0;
  int64_t size = 0;
};
Shard shard_of(int64_t count, int rank, int world);

// The samples of each global step of an epoch of `count` samples:
// `global_batch` each, the last fewer; at most `max_steps` (0: no limit).
std::vector<int64_t> step_sizes(int64_t count, int64_t global_batch, int64_t max_steps);

// One rank's batches of an epoch. Global step k covers order[k*W*b, (k+1)*W*b)
// (W ranks, b samples per rank); the rank takes its shard of that global
// batch. Every rank gets the same number of batches (some may be empty in
// the last step when fewer samples than ranks remain), and together the ranks
// see every sample exactly once, as one process with batch W*b would.
struct RankBatches {
  std::vector<int64_t> order;        // this rank's samples, batch after batch
  std::vector<int64_t> batch_sizes;  // this rank's size of each global step
  std::vector<int64_t> global_sizes;  // all ranks' samples in each step
};
RankBatches rank_batches(const std::vector<int64_t>& order, int64_t per_rank_batch, int rank, int world,
                         int64_t max_steps);

}  // namespace trainer
