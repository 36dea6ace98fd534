#include "train/sample_images.h"

#include <numeric>

#include "images/image_codec.h"
#include "data/image_tensor.h"
#include "train/mixed_precision.h"

namespace trainer {
namespace {

NamedImage named_png(const std::string& name, const torch::Tensor& tensor, const ImagesConfig& images) {
  const Image image = image_from_tensor(tensor, images);
  NamedImage out;
  out.name = name;
  out.image.height = static_cast<int>(image.height);
  out.image.width = static_cast<int>(image.width);
  out.image.channels = static_cast<int>(image.channels);
  out.image.png = encode_png(image, name);
  return out;
}

}  // namespace

std::vector<NamedImage> sample_images(Model& model, const TensorDataset& valid, const ExperimentConfig& config,
                                      const torch::Device& device, int64_t count) {
  count = std::min(count, valid.size());
  if (count <= 0) return {};
  torch::Tensor inputs, targets;
  if (valid.source) {
    std::vector<int64_t> ids(static_cast<size_t>(count));
    std::iota(ids.begin(), ids.end(), 0);
    const SampleBatch batch = valid.source->assemble(ids.data(), count, /*epoch=*/0);
    inputs = batch.finished_inputs();
    targets = batch.targets;
  } else {
    inputs = valid.inputs.narrow(0, 0, count);
    targets = valid.labels.narrow(0, 0, count);
  }
  torch::NoGradGuard no_grad;
  model.net->eval();
  const torch::Tensor outputs = forward_in_precision(model, inputs.to(device), run_autocast_dtype(config, device, model));
  model.train_mode();
  std::vector<NamedImage> images;
  const ImagesConfig& scaling = config.data.images;
  for (int64_t i = 0; i < count; ++i) {
    const std::string prefix = "valid-" + std::to_string(i) + "/";
    images.push_back(named_png(prefix + "input", inputs[i], scaling));
    images.push_back(named_png(prefix + "output", outputs[i], scaling));
    images.push_back(named_png(prefix + "target", targets[i], scaling));
  }
  return images;
}

}  // namespace trainer
