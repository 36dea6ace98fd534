#include "train/batch_size_search.h"

#include <algorithm>

#include "util/error.h"
#include "util/logging.h"
#include "util/text.h"

namespace trainer {

BatchSearch largest_fitting_batch(StepRunner& runner, int64_t start) {
  const int64_t cap = runner.train_size();
  int64_t good = 0, bad = 0;
  for (int64_t batch = std::min(start, cap);; batch = std::min(batch * 2, cap)) {
    if (!runner.fits(batch)) {
      bad = batch;
      break;
    }
    good = batch;
    if (batch == cap) return {good, true};
  }
  // low fits (0: nothing tried fitted, so bisect below `start`), high does not.
  int64_t low = good, high = bad;
  while (high - low > 1) {
    const int64_t middle = low + (high - low) / 2;
    (runner.fits(middle) ? low : high) = middle;
  }
  return {low, false};
}

int64_t auto_batch_size_with(StepRunner& runner, const ExperimentConfig& config) {
  if (config.memory_limit.mib == 0)
    throw UsageError("train.batch_size: auto needs a memory budget to fill",
                     "set memory_limit, e.g. memory_limit: 4GiB (--set memory_limit=4GiB)");
  if (config.devices.entries.size() > 1)
    throw UsageError("train.batch_size: auto is for a run on one device",
                     "find the batch with trainer bench --find-max-batch on one device and write the number");
  const BatchSearch found = largest_fitting_batch(runner, 8);
  if (found.largest == 0)
    throw OutOfMemoryError("train.batch_size: auto: not even a batch of 1 fits memory_limit " +
                           format_mib(config.memory_limit.mib * 1024 * 1024));
  const int64_t chosen = found.whole_data || found.largest < 8 ? found.largest : found.largest / 8 * 8;
  if (found.whole_data)
    log().info("train.batch_size: auto: {} (the whole training set: it all fits memory_limit {}, so the data, not "
               "the memory, set the limit)",
               chosen, format_mib(config.memory_limit.mib * 1024 * 1024));
  else
    log().info("train.batch_size: auto: {} (the largest that fits memory_limit {} is {}; rounded down to a multiple "
               "of 8)",
               chosen, format_mib(config.memory_limit.mib * 1024 * 1024), found.largest);
  return chosen;
}

int64_t find_auto_batch_size(const ExperimentConfig& config, const torch::Device& device) {
  StepRunner runner(config, device);
  return auto_batch_size_with(runner, config);
}

}  // namespace trainer
