#include "data/dataset_loaders.h"

#include <cstdio>
#include <new>

#include "util/error.h"
#include "util/torch_compat.h"

namespace trainer {
namespace {

// Labels a model can learn: the argmax of a fixed random linear map of the
// input (floats), or the first token modulo the class count (tokens).
TensorDataset make_split(const SyntheticConfig& config, int64_t samples, const torch::Tensor& teacher,
                         at::Generator& generator) {
  std::vector<int64_t> shape{samples};
  shape.insert(shape.end(), config.shape.begin(), config.shape.end());
  TensorDataset split;
  if (config.vocabulary > 0) {
    split.inputs = torch::randint(config.vocabulary, shape, generator, torch::kInt64);
    split.labels = split.inputs.reshape({samples, -1}).select(1, 0).remainder(config.classes);
  } else {
    split.inputs = torch::randn(shape, generator);
    split.labels = split.inputs.reshape({samples, -1}).matmul(teacher).argmax(1);
  }
  return split;
}

// make_split, with a refused allocation told as the data set's size and
// the key that sets it, not as the allocator's internal error.
TensorDataset make_split_or_explain(const SyntheticConfig& config, int64_t samples, const std::string& key,
                                    const torch::Tensor& teacher, at::Generator& generator) {
  try {
    return make_split(config, samples, teacher, generator);
  } catch (const c10::Error& e) {
    if (std::string(e.what()).find("allocate") == std::string::npos) throw;
  } catch (const std::bad_alloc&) {
  }
  int64_t values = 1;
  for (auto d : config.shape) values *= d;
  const double gib = static_cast<double>(samples) * static_cast<double>(values) * (config.vocabulary > 0 ? 8 : 4) /
                    (1024.0 * 1024.0 * 1024.0);
  char size[40];
  std::snprintf(size, sizeof size, "%.1f GiB", gib);
  throw OutOfMemoryError("data.synthetic: " + std::to_string(samples) + " samples of " + std::to_string(values) +
                             (config.vocabulary > 0 ? " tokens" : " floats") + " (" + size +
                             ") do not fit in this machine's memory",
                         "make data.synthetic." + key + " or data.synthetic.shape smaller");
}

}  // namespace

DataSplits load_synthetic(const SyntheticConfig& config, int64_t seed) {
  at::Generator generator = compat::make_cpu_generator(static_cast<uint64_t>(seed) * 7919 + 17);
  int64_t features = 1;
  for (auto d : config.shape) features *= d;
  const torch::Tensor teacher = torch::randn({features, config.classes}, generator);
  DataSplits splits;
  splits.train = make_split_or_explain(config, config.train_samples, "train_samples", teacher, generator);
  splits.valid = make_split_or_explain(config, config.valid_samples, "valid_samples", teacher, generator);
  splits.info = preview_synthetic(config);
  return splits;
}

DataInfo preview_synthetic(const SyntheticConfig& config) {
  DataInfo info;
  info.name = "synthetic";
  info.input_shape = config.shape;
  info.token_inputs = config.vocabulary > 0;
  info.vocabulary = config.vocabulary;
  info.classes = config.classes;
  return info;
}

}  // namespace trainer
