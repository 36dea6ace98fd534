#pragma once
// Decoded data sets, held in memory as tensors.
#include <torch/torch.h>

#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "spec/data_info.h"
#include "spec/input_encoding.h"
#include "spec/experiment_config.h"

namespace trainer {

struct DeferredDegradation;  // degrade/deferred_degradation.h

// A batch as a SampleSource makes it: inputs and targets, stacked; or the
// targets and what the step's device does to make the inputs
// (data.degrade.on_device), `inputs` then undefined until deferred->finish().
struct SampleBatch {
  torch::Tensor inputs;
  torch::Tensor targets;
  std::shared_ptr<const DeferredDegradation> deferred;
  // The inputs, made where the deferred work's tensors are if need be.
  torch::Tensor finished_inputs() const;
};

// Samples made as their batch is assembled, not held as rows: image patches
// cut from cached images, augmented, degraded. Called from several loader
// threads at once.
class SampleSource {
 public:
  virtual ~SampleSource() = default;
  // Samples `ids`, stacked. `epoch` (from 1) seeds a training sample's random
  // choices, so that a resumed epoch repeats them; 0 asks for the fixed
  // samples validation sees. `pinned` (a GPU's loader, in a CUDA build):
  // the batch is wanted in page-locked memory, which a source that writes
  // its samples by hand allocates there, sparing the loader a copy; one
  // that does not returns pageable tensors, which the loader pins.
  SampleBatch assemble(const int64_t* ids, int64_t count, int64_t epoch, bool pinned = false) const {
    return make_batch(ids, count, epoch, pinned);
  }

 private:
  virtual SampleBatch make_batch(const int64_t* ids, int64_t count, int64_t epoch, bool pinned) const = 0;
};

struct TensorDataset {
  torch::Tensor inputs;  // [N, ...] float32 or int64 tokens; with a source, the sample ids
  // [N] int64 or the target images; with a source, the sample ids, or the class labels where the source
  // makes the inputs alone (augmented image_folder: data/augmented_images.h)
  torch::Tensor labels;
  std::shared_ptr<const SampleSource> source = nullptr;  // makes the samples, when set
  int64_t size() const { return labels.defined() ? labels.size(0) : 0; }
};

struct DataSplits {
  TensorDataset train;
  TensorDataset valid;
  DataInfo info;
  // How raw rows (tabular) or text (reuters) became the inputs; empty for
  // the other kinds, whose files predict reads as training did.
  InputEncoding encoding;
};

// Loads the data set named in `config` (reuters, fashion_mnist, mnist,
// synthetic). Throws DataError naming the file and what to do.
DataSplits load_dataset(const DataConfig& config, int64_t seed);

// What load_dataset's `info` will say, found without reading the samples:
// from the config (synthetic; reuters with a sequence_length, its 46 topics
// and, where num_words is 0, a stand-in vocabulary) or an IDX file's header.
// nullopt where only loading tells (reuters padded to its longest newswire)
// or the files cannot be read (loading then says why). Never downloads.
// train_size and valid_size stay 0.
std::optional<DataInfo> preview_dataset(const DataConfig& config);

// What the experiment file alone says the data will be, for a command that
// must not need the data at hand (`trainer summary`): the input shape where
// the file fixes it (synthetic; reuters with a sequence_length; mnist and
// fashion_mnist, 28 x 28 as Keras ships them; image_pairs and image_degrade
// with data.patch_size or data.images.size; image_folder with
// data.images.size, its classes then unknown), else nullopt and `missing`
// saying which key would fix it. Reads no file.
struct ConfigDescription {
  std::optional<DataInfo> info;
  std::string missing;  // "data.sequence_length (...)"; empty with `info`, or where no key would do (tabular)
};
ConfigDescription describe_from_config(const DataConfig& config);

}  // namespace trainer
