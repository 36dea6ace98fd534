#pragma once
// image_folder's training images, augmented as batches are assembled
// (data.augment): a random crop of the padded image, flips, quarter turns,
// a small rotation, brightness, contrast and saturation, as torchvision's
// and Keras's augmentation layers do them. The decoded images stay in
// memory as one tensor; each sample's choices come from (seed, epoch,
// sample id), so a resumed epoch sees the same images.
#include "data/dataset.h"
#include "spec/experiment_config.h"

namespace trainer {

class AugmentedImageSource : public SampleSource {
 public:
  // `images`: [N, C, H, W] floats scaled as `config.images.scale` says.
  AugmentedImageSource(torch::Tensor images, torch::Tensor labels, const DataConfig& config, int64_t seed);

 private:
  // Its batches come out of LibTorch's operations, in pageable memory.
  SampleBatch make_batch(const int64_t* ids, int64_t count, int64_t epoch, bool pinned) const override;

  torch::Tensor images_, labels_;
  AugmentConfig augment_;
  int64_t seed_;
  double low_, high_;  // the pixel values' range
};

// `plain` (the decoded training images and their labels) as a data set whose
// batches are augmented: the samples' ids as inputs, their class labels kept.
TensorDataset augmented_images(TensorDataset plain, const DataConfig& config, int64_t seed);

}  // namespace trainer
