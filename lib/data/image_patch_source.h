#pragma once
// The samples of the image-to-image data sets, made as batches are
// assembled: a window (data.patch_size, or the whole image) cut from a cached
// image and its partner at the same place, the input degraded from the
// target for image_degrade, both augmented alike in training, scaled as
// data.images.scale says.
//
// Every random choice of a sample comes from generators seeded by (seed,
// epoch, sample id): a resumed epoch cuts the same windows, and the samples
// do not depend on which loader thread made them or on the cache.
//
// With data.degrade.on_device true, image_degrade's inputs are left to the
// step's device (degrade/deferred_degradation.h): the source cuts the sharp
// windows and draws every choice as before, and the device blurs, adds the
// noise and turns them.
#include <memory>
#include <vector>

#include "data/dataset.h"
#include "data/image_cache.h"
#include "spec/experiment_config.h"

namespace trainer {

// One sample's images, as indices into the cache. input -1: made from the
// target by data.degrade.
struct PatchPair {
  int64_t input = -1;
  int64_t target = 0;
};

class ImagePatchSource : public SampleSource {
 public:
  // `training`: random windows and augmentations; otherwise one fixed window
  // per sample and none. `seed` (experiment.seed) picks the windows and
  // augmentations; data.degrade.seed the degradations.
  ImagePatchSource(std::shared_ptr<const ImageCache> cache, std::vector<PatchPair> pairs, const DataConfig& config,
                   int64_t seed, bool training);

  int64_t size() const { return static_cast<int64_t>(pairs_.size()) * per_image_; }
  // [channels, height, width] of every sample.
  std::vector<int64_t> sample_shape() const;

 private:
  SampleBatch make_batch(const int64_t* ids, int64_t count, int64_t epoch, bool pinned) const override;
  struct Draw;  // one sample's window, orientation and degradation
  Draw draw_sample(int64_t id, int64_t epoch) const;
  // A sample's target and input, `sharp` its target image.
  void make_target(const Draw& draw, const Image& sharp, float* target) const;
  void make_input(const Draw& draw, const Image& sharp, float* input) const;
  SampleBatch assemble_deferred(const int64_t* ids, int64_t count, int64_t epoch, bool pinned) const;

  std::shared_ptr<const ImageCache> cache_;
  std::vector<PatchPair> pairs_;
  DataConfig config_;
  int64_t seed_;
  bool training_;
  bool defer_;  // image_degrade with data.degrade.on_device: true
  int64_t per_image_;
  int64_t height_, width_, channels_;
};

// The source's samples as a TensorDataset (ids in inputs and labels).
TensorDataset source_dataset(std::shared_ptr<const ImagePatchSource> source);

}  // namespace trainer
