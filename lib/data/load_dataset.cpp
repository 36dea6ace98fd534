#include "data/dataset.h"
#include "data/dataset_loaders.h"
#include "degrade/deferred_degradation.h"

namespace trainer {
namespace {

TensorDataset first_samples(const TensorDataset& split, int64_t limit) {
  if (limit <= 0 || limit >= split.size()) return split;
  return {split.inputs.narrow(0, 0, limit).clone(), split.labels.narrow(0, 0, limit).clone(), split.source};
}

DataSplits load_by_kind(const DataConfig& config, int64_t seed) {
  switch (config.dataset) {
    case DatasetKind::kReuters:
      return load_reuters(config);
    case DatasetKind::kFashionMnist:
      return load_idx_dataset(config, "fashion_mnist");
    case DatasetKind::kMnist:
      return load_idx_dataset(config, "mnist");
    case DatasetKind::kSynthetic:
      return load_synthetic(config.synthetic, seed);
    case DatasetKind::kImageFolder:
      return load_image_folder(config, seed);
    case DatasetKind::kImagePairs:
      return load_image_pairs(config, seed);
    case DatasetKind::kImageDegrade:
      return load_image_degrade(config, seed);
    case DatasetKind::kTabular:
      return load_tabular(config);
  }
  throw std::logic_error("unhandled dataset kind");
}

}  // namespace

torch::Tensor SampleBatch::finished_inputs() const { return deferred ? deferred->finish() : inputs; }

std::optional<DataInfo> preview_dataset(const DataConfig& config) {
  switch (config.dataset) {
    case DatasetKind::kReuters:
      return preview_reuters(config);
    case DatasetKind::kFashionMnist:
      return preview_idx_dataset(config, "fashion_mnist");
    case DatasetKind::kMnist:
      return preview_idx_dataset(config, "mnist");
    case DatasetKind::kSynthetic:
      return preview_synthetic(config.synthetic);
    case DatasetKind::kImageFolder:
      return preview_image_folder(config);
    case DatasetKind::kImagePairs:
      return preview_image_pairs(config);
    case DatasetKind::kImageDegrade:
      return preview_image_degrade(config);
    case DatasetKind::kTabular:
      return std::nullopt;  // the file must be read to know its columns and classes
  }
  throw std::logic_error("unhandled dataset kind");
}

DataSplits load_dataset(const DataConfig& config, int64_t seed) {
  DataSplits splits = load_by_kind(config, seed);
  splits.train = first_samples(splits.train, config.max_train_samples);
  splits.valid = first_samples(splits.valid, config.max_valid_samples);
  // The batch loader copies whole rows.
  for (auto* split : {&splits.train, &splits.valid}) {
    split->inputs = split->inputs.contiguous();
    split->labels = split->labels.contiguous();
  }
  splits.info.train_size = splits.train.size();
  splits.info.valid_size = splits.valid.size();
  return splits;
}

}  // namespace trainer
