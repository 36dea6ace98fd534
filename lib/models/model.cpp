#include <cmath>
#include <map>
#include <regex>
#include <utility>

#include "models/layers.h"
#include "models/model.h"
#include "util/error.h"
#include "util/text.h"

namespace trainer {
namespace {

namespace nn = torch::nn;

std::vector<int64_t> shape_of(const torch::Tensor& probe) {
  auto sizes = probe.sizes().vec();
  sizes.erase(sizes.begin());
  return sizes;
}

// `dims` broadcast to `rank` entries; `fallback` when empty.
std::vector<int64_t> expand(const Dims& dims, size_t rank, const Dims& fallback) {
  const Dims& source = dims.empty() ? fallback : dims;
  return source.size() == 1 ? std::vector<int64_t>(rank, source[0]) : source;
}

nn::AnyModule activation_module(Activation activation) {
  switch (activation) {
    case Activation::kRelu: return nn::AnyModule(nn::Functional(torch::relu));
    case Activation::kTanh: return nn::AnyModule(nn::Functional(torch::tanh));
    case Activation::kSigmoid: return nn::AnyModule(nn::Functional(torch::sigmoid));
    case Activation::kGelu: return nn::AnyModule(nn::GELU());
    case Activation::kSoftmax: return nn::AnyModule(nn::Softmax(1));
    case Activation::kLinear: break;
  }
  return {};
}

// Builds one layer at a time, pushing a probe sample through each new module
// to learn the next layer's input shape.
class Builder {
 public:
  Builder(const ModelConfig& config, const DataInfo& data) : config_(config), data_(data) {
    std::vector<int64_t> shape{1};
    shape.insert(shape.end(), data.input_shape.begin(), data.input_shape.end());
    probe_ = data.token_inputs ? torch::zeros(shape, torch::kInt64) : torch::zeros(shape);
    model_.net = nn::Sequential();
  }

  Model build() {
    torch::NoGradGuard no_grad;
    for (size_t i = 0; i < config_.layers.size(); ++i) add_layer(i);
    model_.net->train();
    use_channels_last_for_images();
    return std::move(model_);
  }

 private:
  [[noreturn]] void fail(const std::string& message) const {
    throw ConfigError({"model.layers[" + std::to_string(index_) + "] (" + to_string(layer().type) +
                       ", input " + shape_text(shape_of(probe_)) + "): " + message});
  }
  // A layer whose weights do not fit: the layer at fault and the size, not
  // an allocator's internal error.
  [[noreturn]] void fail_out_of_memory(const std::string& allocator_message) const {
    static const std::regex bytes_pattern(R"(allocate (\d+) bytes)");
    std::smatch match;
    const std::string size = std::regex_search(allocator_message, match, bytes_pattern)
                                 ? " (" + format_mib(std::stoll(match[1].str())) + " in one tensor)"
                                 : std::string();
    throw OutOfMemoryError("model.layers[" + std::to_string(index_) + "] (" + to_string(layer().type) + ", input " +
                               shape_text(shape_of(probe_)) + "): its weights do not fit in this machine's memory" +
                               size,
                           "make the layer smaller (units, filters, kernel_size) or reduce its input first");
  }
  const LayerSpec& layer() const { return config_.layers[index_]; }
  int64_t channels() const { return probe_.size(1); }

  // Appends a module of the current layer and moves the probe through it.
  template <class M>
  void push(M module) {
    const std::string name = "l" + std::to_string(index_) + "_" + std::to_string(parts_++);
    model_.net->push_back(name, nn::AnyModule(module));
    layer_parameters_ += count_parameters(module.ptr());
    try {
      module->eval();
      probe_ = module->forward(probe_);
    } catch (const c10::Error& e) {
      fail(e.what_without_backtrace());
    }
    for (int64_t d = 1; d < probe_.dim(); ++d)
      if (probe_.size(d) == 0) fail("its output " + shape_text(shape_of(probe_)) + " would be empty; the input is too small");
  }
  void push_activation(Activation activation) {
    if (activation == Activation::kLinear) return;
    const bool last = index_ + 1 == config_.layers.size();
    if (activation == Activation::kSoftmax && last) {
      model_.final_softmax = true;  // folded into the loss; see Model
      return;
    }
    // A non-decreasing activation commutes with a max pool that follows:
    // act(max(x)) == max(act(x)), values and gradients alike. Applying it
    // after the pool touches a quarter of the elements (2x2 pools).
    if (!last && is_monotonic(activation) && is_max_pool(config_.layers[index_ + 1].type)) {
      deferred_activation_ = activation;
      return;
    }
    nn::AnyModule module = activation_module(activation);
    model_.net->push_back("l" + std::to_string(index_) + "_" + std::to_string(parts_++), module);
    probe_ = module.forward(probe_);
  }

  void use_channels_last_for_images() {
    if (data_.input_shape.size() != 3) return;
    model_.channels_last = true;
    for (auto& parameter : model_.net->parameters())
      if (parameter.dim() == 4) parameter.set_data(parameter.contiguous(torch::MemoryFormat::ChannelsLast));
  }

  static bool is_monotonic(Activation a) {
    return a == Activation::kRelu || a == Activation::kTanh || a == Activation::kSigmoid;
  }
  static bool is_max_pool(LayerKind kind) {
    bool max_pool = false;
    with_layer_kind(kind, [&](auto k) { max_pool = is_max_pool_kind(k); });
    return max_pool;
  }
  template <class K> static constexpr bool is_max_pool_kind(K) { return false; }
  template <LayerKind K, size_t Rank> static constexpr bool is_max_pool_kind(PoolLayer<K, Rank, true>) { return true; }

  static int64_t count_parameters(const std::shared_ptr<nn::Module>& module) {
    int64_t count = 0;
    for (const auto& p : module->parameters()) count += p.numel();
    return count;
  }

  void init_kernel(torch::Tensor& weight, torch::Tensor& bias) {
    if (config_.init != InitScheme::kKeras) return;
    nn::init::xavier_uniform_(weight);
    if (bias.defined()) nn::init::zeros_(bias);
  }

  void add_layer(size_t index);
  void require(LayerInput input);

  // One builder per entry of LayerKinds (config/layer_kinds.h).
  void build(EmbeddingLayer);
  template <LayerKind K, size_t Rank> void build(ConvLayer<K, Rank>) { add_conv(Rank); }
  template <LayerKind K, size_t Rank, bool Max> void build(PoolLayer<K, Rank, Max>) { add_pool(Rank, Max); }
  void build(GlobalAvgPoolLayer) { push(GlobalAvgPool()); }
  void build(FlattenLayer) { push(nn::Flatten()); }
  void build(DenseLayer);
  void build(DropoutLayer) { push(nn::Dropout(layer().rate)); }
  void build(BatchNormLayer);
  void build(ActivationLayer) { push_activation(layer().activation); }
  void add_conv(size_t rank);
  void add_pool(size_t rank, bool is_max);
  int64_t resolve(const SizeRef& size, const char* key) const;

  const ModelConfig& config_;
  const DataInfo& data_;
  Model model_;
  torch::Tensor probe_;
  size_t index_ = 0;
  int parts_ = 0;
  int64_t layer_parameters_ = 0;
  Activation deferred_activation_ = Activation::kLinear;  // the previous layer's, applied after this pool
  std::map<std::string, int> names_used_;
};

int64_t Builder::resolve(const SizeRef& size, const char* key) const {
  if (!size.is_keyword()) return size.value;
  const int64_t value = size.keyword == "classes" ? data_.classes : data_.vocabulary;
  if (value <= 0)
    fail(std::string(key) + ": '" + size.keyword + "' is unknown for the " + data_.name + " data set; give a number");
  return value;
}

void Builder::require(LayerInput input) {
  const bool tokens = !torch::isFloatingType(probe_.scalar_type());
  if (tokens && input != LayerInput::kTokens && input != LayerInput::kAny)
    fail("needs float inputs, and these are integer tokens; put an embedding layer first");
  switch (input) {
    case LayerInput::kAny: return;
    case LayerInput::kTokens:
      if (!data_.token_inputs || probe_.dim() != 2) fail("needs integer token inputs of shape (None, length)");
      return;
    case LayerInput::kFlat:
      if (probe_.dim() != 2) fail("needs a flat input; put a flatten or global_avgpool layer before it");
      return;
    case LayerInput::kSpatial:
      if (probe_.dim() < 3) fail("needs an input with channels and at least one spatial dimension");
      return;
    case LayerInput::kSpatial1d:
      if (probe_.dim() != 3) fail("needs an input of shape (None, channels, length)");
      return;
    case LayerInput::kSpatial2d:
      if (probe_.dim() != 4) fail("needs an input of shape (None, channels, height, width)");
      return;
  }
}

void Builder::add_layer(size_t index) {
  index_ = index;
  parts_ = 0;
  layer_parameters_ = 0;
  std::string base;
  with_layer_kind(layer().type, [&](auto kind) {
    require(decltype(kind)::input);
    try {
      build(kind);
    } catch (const std::bad_alloc&) {
      fail_out_of_memory("");
    } catch (const c10::Error& e) {
      // LibTorch's CPU allocator reports a refused allocation as a plain
      // c10::Error, told apart only by its text: "can't allocate memory" when
      // posix_memalign fails (1.13 and 2.x), "not enough memory" when the
      // platform allocator returns null (2.x).
      const std::string what = e.what_without_backtrace();
      if (what.find("DefaultCPUAllocator: can't allocate memory") == std::string::npos &&
          what.find("DefaultCPUAllocator: not enough memory") == std::string::npos)
        throw;
      fail_out_of_memory(what);
    }
    base = decltype(kind)::name;
  });
  // Keras names: conv1d, conv1d_1, conv1d_2, ...
  const int used = names_used_[base]++;
  model_.summary.push_back({used ? base + "_" + std::to_string(used) : base, shape_of(probe_), layer_parameters_,
                            layer_parameters_});
}

void Builder::build(EmbeddingLayer) {
  const int64_t rows = resolve(layer().input_dim, "input_dim");
  auto embedding = ChannelsFirstEmbedding(rows, resolve(layer().units, "output_dim"));
  if (config_.init == InitScheme::kKeras) nn::init::uniform_(embedding->embedding->weight, -0.05, 0.05);
  push(embedding);
}

void Builder::add_conv(size_t rank) {
  const auto kernel = expand(layer().kernel_size, rank, {1});
  const auto strides = expand(layer().strides, rank, {1});
  // Keras "same": out = ceil(in / stride); any odd padding goes to the end.
  std::vector<int64_t> left(rank, 0), right(rank, 0);
  for (size_t d = 0; d < rank; ++d) {
    if (layer().padding.mode == ConvPadding::kExplicit) {
      left[d] = right[d] = layer().padding.amount;
    } else if (layer().padding.mode == ConvPadding::kSame) {
      const int64_t in = probe_.size(static_cast<int64_t>(2 + d));
      const int64_t out = (in + strides[d] - 1) / strides[d];
      const int64_t total = std::max<int64_t>((out - 1) * strides[d] + kernel[d] - in, 0);
      left[d] = total / 2;
      right[d] = total - left[d];
    }
  }
  if (left != right) {
    std::vector<int64_t> pads;  // last dimension first
    for (size_t d = rank; d-- > 0;) pads.insert(pads.end(), {left[d], right[d]});
    push(SpatialPad(pads, 0.0));
    std::fill(left.begin(), left.end(), 0);
  }
  const int64_t filters = resolve(layer().units, "filters");
  if (rank == 1) {
    nn::Conv1d conv(nn::Conv1dOptions(channels(), filters, kernel[0]).stride(strides[0]).padding(left[0]).bias(layer().use_bias));
    init_kernel(conv->weight, conv->bias);
    push(conv);
  } else {
    nn::Conv2d conv(nn::Conv2dOptions(channels(), filters, {kernel[0], kernel[1]})
                        .stride({strides[0], strides[1]})
                        .padding({left[0], left[1]})
                        .bias(layer().use_bias));
    init_kernel(conv->weight, conv->bias);
    push(conv);
  }
  push_activation(layer().activation);
}

void Builder::add_pool(size_t rank, bool is_max) {
  const auto window = expand(layer().pool_size, rank, {2});
  const auto strides = expand(layer().strides, rank, window);
  // Keras "same" pooling: out = ceil(in / stride), padding the end; LibTorch
  // gets there with ceil_mode and the left half of the padding.
  const bool same = layer().padding.mode == ConvPadding::kSame;
  std::vector<int64_t> pad(rank, 0), expected(rank, 0);
  for (size_t d = 0; d < rank; ++d) {
    const int64_t in = probe_.size(static_cast<int64_t>(2 + d));
    if (same) {
      expected[d] = (in + strides[d] - 1) / strides[d];
      pad[d] = std::max<int64_t>((expected[d] - 1) * strides[d] + window[d] - in, 0) / 2;
    }
  }
  if (rank == 1) {
    if (is_max) push(nn::MaxPool1d(nn::MaxPool1dOptions(window[0]).stride(strides[0]).padding(pad[0]).ceil_mode(same)));
    else push(nn::AvgPool1d(nn::AvgPool1dOptions(window[0]).stride(strides[0]).padding(pad[0]).ceil_mode(same).count_include_pad(false)));
  } else {
    const auto w = torch::ExpandingArray<2>({window[0], window[1]});
    const auto s = torch::ExpandingArray<2>({strides[0], strides[1]});
    const auto p = torch::ExpandingArray<2>({pad[0], pad[1]});
    if (is_max) push(nn::MaxPool2d(nn::MaxPool2dOptions(w).stride(s).padding(p).ceil_mode(same)));
    else push(nn::AvgPool2d(nn::AvgPool2dOptions(w).stride(s).padding(p).ceil_mode(same).count_include_pad(false)));
  }
  for (size_t d = 0; same && d < rank; ++d)
    if (probe_.size(static_cast<int64_t>(2 + d)) != expected[d]) fail("'same' padding is not possible for this window");
  if (deferred_activation_ != Activation::kLinear) {
    push_activation(std::exchange(deferred_activation_, Activation::kLinear));
  }
}

void Builder::build(DenseLayer) {
  nn::Linear linear(nn::LinearOptions(probe_.size(1), resolve(layer().units, "units")).bias(layer().use_bias));
  init_kernel(linear->weight, linear->bias);
  push(linear);
  push_activation(layer().activation);
}

void Builder::build(BatchNormLayer) {
  const double momentum = 1.0 - layer().momentum;  // Keras keeps, LibTorch adds
  if (probe_.dim() == 4) push(nn::BatchNorm2d(nn::BatchNorm2dOptions(channels()).momentum(momentum).eps(layer().epsilon)));
  else push(nn::BatchNorm1d(nn::BatchNorm1dOptions(channels()).momentum(momentum).eps(layer().epsilon)));
}

}  // namespace

Model build_model(const ModelConfig& config, const DataInfo& data) { return Builder(config, data).build(); }

}  // namespace trainer
