#include "data/image_files.h"

#include <atomic>
#include <exception>
#include <thread>

#include "formats/file_bytes.h"
#include "data/image_tensor.h"
#include "util/error.h"
#include "util/logging.h"

namespace trainer {

DecodedFiles decode_image_files(const std::vector<std::string>& files, const DataConfig& config) {
  const size_t n = files.size();
  DecodedFiles decoded{std::vector<torch::Tensor>(n), std::vector<std::string>(n)};
  std::vector<std::exception_ptr> failures(n);
  std::atomic<size_t> next{0};
  const auto work = [&] {
    for (size_t i = next++; i < n; i = next++) {
      try {
        const Image image = decode_image(read_file_bytes(files[i]), files[i], image_channels(config.images));
        decoded.tensors[i] = image_tensor(image, config.images);
      } catch (const DataError& e) {
        decoded.problems[i] = e.what();
      } catch (...) {
        failures[i] = std::current_exception();
      }
    }
  };
  std::vector<std::thread> threads;
  for (int64_t t = 1; t < std::min<int64_t>(config.workers, static_cast<int64_t>(n)); ++t) threads.emplace_back(work);
  work();
  for (auto& thread : threads) thread.join();
  for (const auto& failure : failures)
    if (failure) std::rethrow_exception(failure);
  return decoded;
}

std::vector<bool> usable_files(const std::vector<std::string>& problems, const DataConfig& config,
                               const std::string& what) {
  std::vector<bool> usable(problems.size(), true);
  int64_t skipped = 0;
  for (size_t i = 0; i < problems.size(); ++i) {
    if (problems[i].empty()) continue;
    if (config.on_bad_file == BadFilePolicy::kError)
      throw DataError(problems[i], "remove or replace the file, or set data.on_bad_file: skip");
    if (++skipped <= 10) log().warn("skipping {}", problems[i]);
    usable[i] = false;
  }
  if (skipped > 0)
    log().warn("{} of the {} {} could not be decoded and {} left out", skipped, problems.size(), what,
               skipped == 1 ? "was" : "were");
  return usable;
}

void require_one_size(const DataSplits& splits, const DataConfig& config) {
  if (splits.train.inputs.sizes().slice(1) == splits.valid.inputs.sizes().slice(1)) return;
  throw DataError((config.validation_path.empty() ? config.path : config.validation_path) +
                      ": the validation images are " + pixel_size_text(splits.valid.inputs[0]) +
                      " pixels, the training images " + pixel_size_text(splits.train.inputs[0]),
                  "set data.images.size to bring every image to one size");
}

}  // namespace trainer
