#pragma once
// Builds the GraphNet of `model.layers`, one node per layer (and per copy of
// a repeated one), pushing probe samples through each new module to learn
// the shapes the next layers get. Internal to lib/models: build_model() is
// the interface.
#include <torch/torch.h>

#include <map>
#include <string>
#include <vector>

#include "models/graph_net.h"
#include "models/model.h"
#include "models/sequence_layers.h"
#include "spec/data_info.h"
#include "spec/experiment_config.h"

namespace trainer {

class GraphBuilder {
 public:
  GraphBuilder(const ModelConfig& config, const DataInfo& data);
  Model build();

 private:
  // The layer being built, for its modules' names and for errors.
  struct Current {
    const LayerSpec* layer = nullptr;
    std::string path;          // "model.layers[3].layers[1]"
    bool is_output = false;    // its output is the model's
    bool before_max_pool = false;  // read only by the max pool that follows
    std::string row;           // its summary row's name: "conv2d_1"
    bool frozen = false;       // trainable: false, model.freeze, or inside a frozen block
  };

  int build_list(const std::vector<LayerSpec>& layers, int slot, const std::string& prefix, bool top_level);
  int build_layer(const LayerSpec& layer, const std::string& path, std::vector<int> inputs, const std::string& row_name,
                  bool is_output, bool before_max_pool);
  int build_residual(const LayerSpec& layer, const ResidualLayer& block, const std::string& path, int input);
  void merge(const std::vector<int>& inputs, LayerKind kind, int64_t axis);
  int lookup(const std::string& name) const;
  std::string row_name(const LayerSpec& layer, int64_t copy);
  void add_row(const std::string& name, int slot, const std::vector<int>& inputs);
  // Whether the layer of row `name` is frozen (trainable: false, model.freeze).
  bool frozen(const LayerSpec& layer, const std::string& name);
  // Every model.freeze pattern names some layer (a ConfigError otherwise).
  void check_freeze_patterns() const;

  // A ConfigError naming the layer (file:line, path, kind) and its input:
  // the probe, or `input` where the probe is not it yet (merges, blocks).
  [[noreturn]] void fail(const std::string& message) const;
  [[noreturn]] void fail_at(const torch::Tensor& input, const std::string& message) const;
  [[noreturn]] void fail_out_of_memory(const std::string& allocator_message) const;
  const LayerSpec& layer() const { return *current_.layer; }
  torch::Tensor& probe() { return probes_.back(); }
  const torch::Tensor& probe() const { return probes_.back(); }
  int64_t channels() const { return probe().size(1); }

  // Appends a module to the current node and moves the probe through it.
  template <class M>
  void push(M module) { push_any(torch::nn::AnyModule(module), module.ptr()); }
  void push_any(torch::nn::AnyModule module, const std::shared_ptr<torch::nn::Module>& ptr);
  void push_activation(Activation activation, std::optional<double> alpha = std::nullopt);
  void require(LayerInput input);
  int64_t resolve(const SizeRef& size, const char* key) const;
  // By the layer's kernel_initializer and bias_initializer, or model.init's;
  // the kernel is also the one kernel_regularizer penalises.
  void initialise(const KernelKeys& keys, torch::Tensor& weight, torch::Tensor& bias, int64_t fan_in,
                  int64_t fan_out);
  // Each of a sequence layer's kernels (models/sequence_layers.h): as
  // initialise, the recurrent ones by `recurrent` and unpenalised.
  void initialise(const KernelKeys& keys, const std::vector<KernelRef>& kernels,
                  Initializer recurrent = Initializer::kDefault);
  // The layer's `own` initialiser; default: `keras` under model.init: keras,
  // else LibTorch's.
  Initializer scheme(Initializer own, Initializer keras) const;
  void use_channels_last_for_images();

  // Builds the current single-input layer by its kind's overload of `build`
  // (layer_builders.cpp, where every builder is instantiated).
  void build_single(const LayerSpec& layer);
  // One builder per single-input entry of LayerKinds (spec/layer_kinds.h),
  // given the entry with its keys; the residual block and the merges are the
  // graph's (graph_builder.cpp).
  void build(const EmbeddingLayer& embedding);
  template <LayerKind K, size_t Rank> void build(const ConvLayer<K, Rank>& conv);
  template <LayerKind K, size_t Rank> void build(const ConvTransposeLayer<K, Rank>& conv);
  void build(const DepthwiseConv2dLayer& conv);
  template <LayerKind K, size_t Rank, bool Max> void build(const PoolLayer<K, Rank, Max>& pool);
  void build(const GlobalAvgPoolLayer&);
  void build(const GlobalMaxPoolLayer&);
  void build(const Upsampling2dLayer& upsampling);
  template <LayerKind K> void build(const Padding2dLayer<K>& padding);
  void build(const Cropping2dLayer& cropping);
  void build(const FlattenLayer&);
  void build(const ReshapeLayer& reshape);
  void build(const PermuteLayer& permute);
  void build(const DenseLayer& dense);
  void build(const DropoutLayer& dropout);
  template <LayerKind K, size_t Rank> void build(const SpatialDropoutLayer<K, Rank>& dropout);
  void build(const GaussianNoiseLayer& noise);
  void build(const BatchNormLayer& norm);
  void build(const LayerNormLayer& norm);
  void build(const GroupNormLayer& norm);
  void build(const InstanceNormLayer& norm);
  template <LayerKind K> void build(const RecurrentLayer<K>& recurrent);
  void build(const PositionalEmbeddingLayer&);
  void build(const MultiHeadAttentionLayer& attention);
  void build(const TransformerEncoderLayer& encoder);
  void build(const ActivationLayer& activation);
  void build(const RescalingLayer& rescaling);
  void build(const TorchScriptLayer& scripted);
  // The mask for a layer that honours it: null when its input carries none.
  std::shared_ptr<SequenceMask> input_mask() const { return input_masked_ ? model_.net->sequence_mask() : nullptr; }
  // A convolution, ConvLayer's or DepthwiseConv2dLayer's keys.
  template <class Conv> void add_conv(const Conv& conv, size_t rank, bool depthwise);
  void add_pool(const Dims& pool_size, const Dims& given_strides, const PaddingSpec& padding, size_t rank, bool is_max);
  void add_group_norm(int64_t groups, const ChannelNormKeys& norm);
  // Keras "same" (or explicit) padding of a convolution: what goes on each
  // side of every spatial dimension.
  void same_padding(const PaddingSpec& padding, size_t rank, const std::vector<int64_t>& kernel,
                    const std::vector<int64_t>& strides, const std::vector<int64_t>& dilation,
                    std::vector<int64_t>& left, std::vector<int64_t>& right);

  const ModelConfig& config_;
  const DataInfo& data_;
  Model model_;
  std::vector<torch::Tensor> probes_;  // the probe of every slot, the input first
  std::vector<std::string> slot_rows_;  // the summary row that wrote each slot
  std::vector<bool> slot_masked_;       // whether each slot carries the padding mask
  bool input_masked_ = false;           // the current layer's input does
  bool output_masked_ = false;          // and its output will
  std::map<std::string, int> names_;    // tensor name -> slot
  Current current_;
  bool in_frozen_block_ = false;  // building a frozen residual block's body
  std::vector<bool> freeze_used_;  // each model.freeze pattern matched a layer
  int node_ = -1;
  int parts_ = 0;
  int64_t row_parameters_ = 0;
  int64_t row_trainable_ = 0;
  int64_t row_multiply_adds_ = 0;  // one sample's forward, in the layer's modules
  Activation deferred_activation_ = Activation::kLinear;  // applied after the next max pool
  std::map<std::string, int> names_used_;
};

}  // namespace trainer
