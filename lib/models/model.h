#pragma once
// The network built from `model.layers`, with what the loss needs to know.
#include <torch/torch.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "models/graph_net.h"
#include "models/layer_summary.h"
#include "spec/data_info.h"
#include "spec/experiment_config.h"

namespace trainer {

// A layer's kernel_regularizer: the tensor is the parameter itself (moving
// the model to a device or a memory layout keeps it the same tensor).
struct WeightPenalty {
  torch::Tensor weight;
  double l1 = 0;
  double l2 = 0;
};

struct Model {
  GraphNet net;
  // Some layer reads other than the previous layer's output (inputs, merges,
  // residual blocks): the summary shows what each layer is connected to.
  bool is_graph = false;
  // The last layer's softmax was left out of `net`: it outputs logits, and the
  // loss and predictions apply (log-)softmax themselves, stably.
  bool final_softmax = false;
  // Image models run channels-last (NHWC): oneDNN's convolutions are ~20%
  // faster on CPU that way (scripts/bench/epoch_bench.sh). Shapes reported
  // and checkpoints are unaffected: only the memory layout differs.
  bool channels_last = false;
  // A torchscript layer: code trainer cannot see into (a CUDA graph may not capture it).
  bool scripted = false;
  std::vector<LayerSummary> summary;
  std::vector<WeightPenalty> penalties;
  // Each module of `net` ("l3_1") -> the layer, by its summary name, it belongs to ("conv2d_1").
  std::map<std::string, std::string> module_layers;
  // The modules of frozen layers (trainable: false, model.freeze): their
  // parameters take no gradient, and they stay in eval mode, so that a
  // frozen batchnorm keeps its moving statistics, as Keras's does.
  std::vector<std::shared_ptr<torch::nn::Module>> frozen_modules;
  // The first training batchnorm that sees one value a channel in a sample
  // (a dense layer's output, 1 x 1 images), as "model.layers[1]
  // (batchnorm)"; empty if none. It cannot train on a batch of one sample:
  // it normalises each channel over the batch, and one value has no spread
  // (LibTorch stops the step).
  std::string batch_of_one_refused_by;

  // Training mode, frozen layers excepted (instead of net->train()).
  void train_mode() {
    net->train();
    for (auto& module : frozen_modules) module->eval();
  }
  // The classes the model scores (its output's width when that is one
  // dimension); 0 for other outputs.
  int64_t output_classes() const {
    if (summary.empty() || summary.back().output_shape.size() != 1) return 0;
    return summary.back().output_shape[0];
  }
  // The multiply-adds of one sample's forward pass (models/multiply_adds.h).
  int64_t forward_multiply_adds() const {
    int64_t total = 0;
    for (const auto& row : summary) total += row.multiply_adds;
    return total;
  }
  // The parameters that train: the optimizer's, the gradients' to reduce and clip.
  std::vector<torch::Tensor> trainable_parameters() const {
    std::vector<torch::Tensor> out;
    for (const auto& p : net->parameters())
      if (p.requires_grad()) out.push_back(p);
    return out;
  }
  // A tensor named as the model holds it ("l3_1.weight") by its layer's
  // summary name ("conv2d_1.weight"); the name itself where no layer owns it.
  std::string layer_name_of(const std::string& tensor) const {
    const auto dot = tensor.find('.');
    const auto it = module_layers.find(tensor.substr(0, dot));
    return it == module_layers.end() || dot == std::string::npos ? tensor : it->second + tensor.substr(dot);
  }

  // The network applied to a batch, in the layout it was built for.
  torch::Tensor forward(const torch::Tensor& inputs) {
    return net->forward(channels_last && inputs.dim() == 4 ? in_channels_last(inputs) : inputs);
  }

  // `t` laid out channels-last in a way LibTorch recognises. With one
  // channel, NCHW strides already pass is_contiguous(ChannelsLast), so
  // contiguous() keeps them; but oneDNN reads the layout from
  // suggest_memory_format(), which calls those strides NCHW, and then runs
  // the whole first convolution, and the pool after it, in its slow NCHW
  // path (the backward ~4x slower). Fresh channels-last strides avoid that.
  static torch::Tensor in_channels_last(const torch::Tensor& t) {
    if (t.suggest_memory_format() == torch::MemoryFormat::ChannelsLast) return t;
    return torch::empty(t.sizes(), t.options().memory_format(torch::MemoryFormat::ChannelsLast)).copy_(t);
  }

  // Image models are built channels-last, the layout oneDNN runs fastest on
  // CPUs. cuDNN runs these models faster in NCHW (measured on an H200, see
  // docs/performance.md), so a GPU run lays them out that way unless asked.
  void use_nchw() {
    torch::NoGradGuard no_grad;
    channels_last = false;
    for (auto& parameter : net->parameters())
      if (parameter.dim() == 4) parameter.set_data(parameter.contiguous());
  }
};

// The sum of the kernel penalties, added to every batch's loss; undefined
// when no layer has one.
inline torch::Tensor weight_penalty(const Model& model) {
  torch::Tensor total;
  for (const auto& p : model.penalties) {
    torch::Tensor term;
    if (p.l1 > 0) term = p.weight.abs().sum() * p.l1;
    if (p.l2 > 0) term = term.defined() ? term + p.weight.square().sum() * p.l2 : p.weight.square().sum() * p.l2;
    total = total.defined() ? total + term : term;
  }
  return total;
}

// Builds the layers for inputs described by `data` (shapes inferred, `units:
// classes` and `input_dim: vocabulary` resolved) and initialises them.
// Throws ConfigError naming the layer (file:line, path, input shape) when
// shapes do not fit.
Model build_model(const ModelConfig& config, const DataInfo& data);

}  // namespace trainer
