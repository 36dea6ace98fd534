#include "infer/top_classes.h"

namespace trainer {

torch::Tensor class_probabilities(const torch::Tensor& output, const Model& model, const ExperimentConfig& config) {
  return model.final_softmax || config.loss.from_logits ? torch::softmax(output.to(torch::kFloat32), 1) : output;
}

nlohmann::ordered_json top_classes(const torch::Tensor& probabilities, const DataInfo& info, int64_t k) {
  const auto [values, indices] =
      probabilities.to(torch::kCPU, torch::kFloat64).topk(std::min<int64_t>(k, probabilities.size(0)));
  nlohmann::ordered_json top = nlohmann::ordered_json::array();
  for (int64_t i = 0; i < values.size(0); ++i) {
    const int64_t label = indices[i].item<int64_t>();
    nlohmann::ordered_json entry;
    entry["label"] = label;
    if (static_cast<size_t>(label) < info.class_names.size()) entry["class"] = info.class_names[static_cast<size_t>(label)];
    entry["probability"] = values[i].item<double>();
    top.push_back(entry);
  }
  return top;
}

}  // namespace trainer
