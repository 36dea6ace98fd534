#pragma once
// The order in which an epoch visits the training set. A pure function of
// (seed, epoch), so a resumed run sees exactly the order the uninterrupted run
// would have, with no sampler state to save.
#include <cstdint>
#include <vector>

namespace trainer {

std::vector<int64_t> epoch_order(int64_t size, int64_t seed, int64_t epoch, bool shuffle);

}  // namespace trainer
