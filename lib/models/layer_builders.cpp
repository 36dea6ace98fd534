// The builders of the single-input layer kinds (spec/layer_kinds.h).
#include <cmath>

#include "models/graph_builder.h"
#include "models/layers.h"
#include "models/scripted_module.h"
#include "models/window_max_pool.h"

namespace trainer {
namespace {

namespace nn = torch::nn;
namespace F = torch::nn::functional;

// `dims` broadcast to `rank` entries; `fallback` when empty.
std::vector<int64_t> expand(const Dims& dims, size_t rank, const Dims& fallback) {
  const Dims& source = dims.empty() ? fallback : dims;
  return source.size() == 1 ? std::vector<int64_t>(rank, source[0]) : source;
}

// n, [h, w] or [top, bottom, left, right] -> {top, bottom, left, right}.
std::array<int64_t, 4> sides(const Amounts& amounts) {
  const auto& v = amounts.values;
  if (v.size() == 1) return {v[0], v[0], v[0], v[0]};
  if (v.size() == 2) return {v[0], v[0], v[1], v[1]};
  return {v[0], v[1], v[2], v[3]};
}

}  // namespace

void GraphBuilder::build_single(const LayerSpec& layer) {
  std::visit(
      [&](const auto& entry) {
        constexpr LayerInput input = std::decay_t<decltype(entry)>::input;
        if constexpr (input != LayerInput::kMerge && input != LayerInput::kBlock) build(entry);
      },
      layer.keys);
}

void GraphBuilder::build(const EmbeddingLayer& layer) {
  const int64_t rows = resolve(layer.input_dim, "input_dim");
  // A token id past the table would stop the first step inside LibTorch's
  // lookup ("index out of range"), after the data was read and the run
  // directory made; the data's vocabulary is known here, so say it now.
  if (data_.token_inputs && !data_.vocabulary_stand_in && rows < data_.vocabulary) {
    const std::string fewer =
        data_.name == "reuters" ? ", or keep fewer words (data.num_words: " + std::to_string(rows) + ")" : "";
    fail("input_dim: " + std::to_string(rows) + " rows, but the " + data_.name + " data's token ids go up to " +
         std::to_string(data_.vocabulary - 1) + "; give input_dim: vocabulary (or at least " +
         std::to_string(data_.vocabulary) + ")" + fewer);
  }
  auto embedding = ChannelsFirstEmbedding(rows, resolve(layer.output_dim, "output_dim"));
  if (config_.init == InitScheme::kKeras) nn::init::uniform_(embedding->embedding->weight, -0.05, 0.05);
  if (layer.mask_zero) {
    model_.net->enable_mask();
    model_.net->sequence_mask()->valid = torch::ones({1, probe().size(1)}, torch::kBool);  // the probes'
  }
  push(embedding);
}

template <LayerKind K>
void GraphBuilder::build(const RecurrentLayer<K>& layer) {
  RecurrentImpl::Options options;
  options.lstm = layer.is_lstm;
  options.input = channels();
  options.units = resolve(layer.units, "units");
  options.bidirectional = layer.bidirectional;
  options.return_sequences = layer.return_sequences;
  options.dropout = layer.dropout;
  Recurrent recurrent(options, input_mask());
  const std::vector<KernelRef> kernels = recurrent->kernels();
  initialise(layer, kernels, layer.recurrent_initializer);
  if (layer.is_lstm && scheme(layer.bias_initializer, Initializer::kZeros) != Initializer::kPytorch) {
    // Keras's unit_forget_bias: the forget gate (the second, in Keras's
    // order and LibTorch's) starts at 1 whatever the bias_initializer.
    torch::NoGradGuard no_grad;
    for (const KernelRef& kernel : kernels)
      if (!kernel.recurrent) kernel.bias.narrow(0, options.units, options.units).fill_(1.0);
  }
  push(recurrent);
}

void GraphBuilder::build(const PositionalEmbeddingLayer&) { push(PositionalEmbedding(probe().size(2), channels())); }

void GraphBuilder::build(const MultiHeadAttentionLayer& layer) {
  const int64_t heads = layer.num_heads;
  if (layer.key_dim == 0 && channels() % heads != 0)
    fail("num_heads: " + std::to_string(heads) + " does not divide the " + std::to_string(channels()) +
         " features; give key_dim");
  SelfAttention attention(channels(), heads, layer.key_dim ? layer.key_dim : channels() / heads, layer.dropout,
                          layer.causal, input_mask());
  initialise(layer, attention->kernels());
  push(attention);
}

void GraphBuilder::build(const TransformerEncoderLayer& layer) {
  if (channels() % layer.num_heads != 0)
    fail("num_heads: " + std::to_string(layer.num_heads) + " does not divide the " + std::to_string(channels()) +
         " features");
  TransformerEncoder encoder(channels(), layer.num_heads, layer.intermediate_dim, layer.dropout, layer.causal,
                             input_mask());
  initialise(layer, encoder->kernels());
  push(encoder);
}

void GraphBuilder::same_padding(const PaddingSpec& padding, size_t rank, const std::vector<int64_t>& kernel,
                                const std::vector<int64_t>& strides, const std::vector<int64_t>& dilation,
                                std::vector<int64_t>& left, std::vector<int64_t>& right) {
  left.assign(rank, 0);
  right.assign(rank, 0);
  for (size_t d = 0; d < rank; ++d) {
    if (padding.mode == ConvPadding::kExplicit) {
      left[d] = right[d] = padding.amount;
    } else if (padding.mode == ConvPadding::kSame) {
      // Keras "same": out = ceil(in / stride); any odd padding goes to the end.
      const int64_t in = probe().size(static_cast<int64_t>(2 + d));
      const int64_t out = (in + strides[d] - 1) / strides[d];
      const int64_t span = dilation[d] * (kernel[d] - 1) + 1;
      const int64_t total = std::max<int64_t>((out - 1) * strides[d] + span - in, 0);
      left[d] = total / 2;
      right[d] = total - left[d];
    }
  }
}

template <LayerKind K, size_t Rank>
void GraphBuilder::build(const ConvLayer<K, Rank>& conv) { add_conv(conv, Rank, false); }
void GraphBuilder::build(const DepthwiseConv2dLayer& conv) { add_conv(conv, 2, true); }

template <class Conv>
void GraphBuilder::add_conv(const Conv& layer, size_t rank, bool depthwise) {
  const auto kernel = expand(layer.kernel_size, rank, {1});
  const auto strides = expand(layer.strides, rank, {1});
  const auto dilation = expand(layer.dilation_rate, rank, {1});
  std::vector<int64_t> left, right;
  same_padding(layer.padding, rank, kernel, strides, dilation, left, right);
  for (size_t d = 0; d < rank; ++d) {
    const int64_t span = dilation[d] * (kernel[d] - 1) + 1;
    const int64_t padded = probe().size(static_cast<int64_t>(2 + d)) + left[d] + right[d];
    if (span > padded)
      fail("kernel_size " + std::to_string(kernel[d]) + (dilation[d] > 1 ? " (dilated to " + std::to_string(span) + ")" : "") +
           " is larger than the input's " + std::to_string(padded) + (left[d] + right[d] > 0 ? " (padded)" : "") +
           "; use a smaller kernel, padding: same, or a larger input");
  }
  if (left != right) {
    std::vector<int64_t> pads;  // last dimension first
    for (size_t d = rank; d-- > 0;) pads.insert(pads.end(), {left[d], right[d]});
    push(SpatialPad(pads, 0.0));
    std::fill(left.begin(), left.end(), 0);
  }
  const int64_t in = channels();
  int64_t groups = in, filters = 0, multiplier = 1;
  if constexpr (std::is_same_v<Conv, DepthwiseConv2dLayer>) {
    multiplier = layer.depth_multiplier;
    filters = in * multiplier;
  } else {
    groups = layer.groups;
    filters = resolve(layer.filters, "filters");
  }
  if (in % groups != 0)
    fail("groups: " + std::to_string(groups) + " does not divide the input's " + std::to_string(in) + " channels");
  int64_t receptive = 1;
  for (auto k : kernel) receptive *= k;
  // Keras's fans: a depthwise kernel is (k, k, channels, multiplier).
  const int64_t fan_in = receptive * (depthwise ? in : in / groups);
  const int64_t fan_out = receptive * (depthwise ? multiplier : filters);
  if (rank == 1) {
    nn::Conv1d conv(nn::Conv1dOptions(in, filters, kernel[0])
                        .stride(strides[0]).padding(left[0]).dilation(dilation[0]).groups(groups)
                        .bias(layer.use_bias));
    initialise(layer, conv->weight, conv->bias, fan_in, fan_out);
    push(conv);
  } else {
    const auto options = nn::Conv2dOptions(in, filters, {kernel[0], kernel[1]})
                             .stride({strides[0], strides[1]})
                             .padding({left[0], left[1]})
                             .dilation({dilation[0], dilation[1]})
                             .groups(groups)
                             .bias(layer.use_bias);
    if (groups > 1 && groups == in && filters != in) {
      ChannelMultiplierConv2d conv(options);
      initialise(layer, conv->weight, conv->bias, fan_in, fan_out);
      push(conv);
    } else {
      nn::Conv2d conv(options);
      initialise(layer, conv->weight, conv->bias, fan_in, fan_out);
      push(conv);
    }
  }
  push_activation(layer.activation);
}

// Keras's transposed convolution: valid gives (in - 1) * stride + kernel,
// same gives in * stride, cropping (kernel - stride) / 2 from the start.
template <LayerKind K, size_t Rank>
void GraphBuilder::build(const ConvTransposeLayer<K, Rank>& layer) {
  constexpr size_t rank = Rank;
  const auto kernel = expand(layer.kernel_size, rank, {1});
  const auto strides = expand(layer.strides, rank, {1});
  const bool same = layer.padding.mode == ConvPadding::kSame;
  std::vector<int64_t> extra(rank, 0), crop_start(rank, 0), target(rank, 0);
  for (size_t d = 0; d < rank; ++d) {
    const int64_t in = probe().size(static_cast<int64_t>(2 + d));
    const int64_t valid = (in - 1) * strides[d] + kernel[d];
    target[d] = same ? in * strides[d] : valid;
    extra[d] = std::max<int64_t>(target[d] - valid, 0);  // kernel < stride: LibTorch's output_padding
    crop_start[d] = std::max<int64_t>(valid - target[d], 0) / 2;
  }
  const int64_t in = channels();
  const int64_t filters = resolve(layer.filters, "filters");
  int64_t receptive = 1;
  for (auto k : kernel) receptive *= k;
  if constexpr (rank == 1) {
    nn::ConvTranspose1d conv(nn::ConvTranspose1dOptions(in, filters, kernel[0])
                                 .stride(strides[0]).output_padding(extra[0]).bias(layer.use_bias));
    initialise(layer, conv->weight, conv->bias, receptive * in, receptive * filters);
    push(conv);
    const int64_t cut = probe().size(2) - target[0];
    if (cut != 0) push(nn::Functional([start = crop_start[0], cut](const torch::Tensor& x) {
      return x.narrow(2, start, x.size(2) - cut);
    }));
  } else {
    nn::ConvTranspose2d conv(nn::ConvTranspose2dOptions(in, filters, {kernel[0], kernel[1]})
                                 .stride({strides[0], strides[1]})
                                 .output_padding({extra[0], extra[1]})
                                 .bias(layer.use_bias));
    initialise(layer, conv->weight, conv->bias, receptive * in, receptive * filters);
    push(conv);
    const int64_t rows = probe().size(2) - target[0], columns = probe().size(3) - target[1];
    if (rows != 0 || columns != 0)
      push(Crop2d(crop_start[0], rows - crop_start[0], crop_start[1], columns - crop_start[1]));
  }
  push_activation(layer.activation);
}

template <LayerKind K, size_t Rank, bool Max>
void GraphBuilder::build(const PoolLayer<K, Rank, Max>& pool) {
  add_pool(pool.pool_size, pool.strides, pool.padding, Rank, Max);
}

void GraphBuilder::add_pool(const Dims& pool_size, const Dims& given_strides, const PaddingSpec& padding, size_t rank,
                            bool is_max) {
  const auto window = expand(pool_size, rank, {2});
  const auto strides = expand(given_strides, rank, window);
  // Keras "same" pooling: out = ceil(in / stride), the odd padding at the
  // end. LibTorch mostly gets there with ceil_mode and the left half of the
  // padding; where it cannot (an even window at stride 1), PaddedPool pads.
  const bool same = padding.mode == ConvPadding::kSame;
  std::vector<int64_t> pad(rank, 0), pads;  // pads: F::pad's, last dimension first
  bool ceil_mode_fits = true;
  for (size_t d = 0; d < rank; ++d) {
    const int64_t in = probe().size(static_cast<int64_t>(2 + d));
    if (!same && window[d] > in)
      fail("pool_size " + std::to_string(window[d]) + " is larger than the input's " + std::to_string(in));
    if (!same) continue;
    const int64_t expected = (in + strides[d] - 1) / strides[d];
    const int64_t total = std::max<int64_t>((expected - 1) * strides[d] + window[d] - in, 0);
    pad[d] = total / 2;
    // LibTorch's size with ceil_mode: no window may start in the end padding.
    int64_t out = (in + 2 * pad[d] - window[d] + strides[d] - 1) / strides[d] + 1;
    if ((out - 1) * strides[d] >= in + pad[d]) --out;
    ceil_mode_fits = ceil_mode_fits && out == expected && 2 * pad[d] <= window[d];
    pads.insert(pads.begin(), {total / 2, total - total / 2});
  }
  if (!ceil_mode_fits) {
    push(PaddedPool(is_max, window, strides, pads));
  } else if (rank == 1 && is_max && window[0] <= kWindowMaxPool1dWidest &&
             tiles_without_padding(window[0], strides[0], pad[0]) &&
             (!same || probe().size(2) % strides[0] == 0)) {  // where ceil_mode, which "same" sets, changes nothing
    push(WindowMaxPool1d(window[0]));
  } else if (rank == 2 && is_max && tiles_without_padding(window[0], strides[0], pad[0]) &&
             tiles_without_padding(window[1], strides[1], pad[1]) &&
             (!same || (probe().size(2) % strides[0] == 0 && probe().size(3) % strides[1] == 0))) {
    push(WindowMaxPool2d(window[0], window[1]));
  } else if (rank == 1) {
    if (is_max) push(nn::MaxPool1d(nn::MaxPool1dOptions(window[0]).stride(strides[0]).padding(pad[0]).ceil_mode(same)));
    else push(nn::AvgPool1d(nn::AvgPool1dOptions(window[0]).stride(strides[0]).padding(pad[0]).ceil_mode(same).count_include_pad(false)));
  } else {
    const auto w = torch::ExpandingArray<2>({window[0], window[1]});
    const auto s = torch::ExpandingArray<2>({strides[0], strides[1]});
    const auto p = torch::ExpandingArray<2>({pad[0], pad[1]});
    if (is_max) push(nn::MaxPool2d(nn::MaxPool2dOptions(w).stride(s).padding(p).ceil_mode(same)));
    else push(nn::AvgPool2d(nn::AvgPool2dOptions(w).stride(s).padding(p).ceil_mode(same).count_include_pad(false)));
  }
  if (deferred_activation_ != Activation::kLinear) {
    current_.before_max_pool = false;
    current_.is_output = false;
    push_activation(std::exchange(deferred_activation_, Activation::kLinear));
  }
}

void GraphBuilder::build(const GlobalAvgPoolLayer&) { push(GlobalPool(false, input_mask())); }
void GraphBuilder::build(const GlobalMaxPoolLayer&) { push(GlobalPool(true, input_mask())); }
void GraphBuilder::build(const FlattenLayer&) { push(nn::Flatten()); }
void GraphBuilder::build(const DropoutLayer& dropout) {
  push(nn::Dropout(dropout.rate));
  model_.net->set_newest_role({NodeRole::kDropout, dropout.rate, {}});
}
template <LayerKind K, size_t Rank>
void GraphBuilder::build(const SpatialDropoutLayer<K, Rank>& dropout) { push(SpatialDropout(dropout.rate)); }
void GraphBuilder::build(const GaussianNoiseLayer& noise) { push(GaussianNoise(noise.stddev)); }
void GraphBuilder::build(const ActivationLayer& layer) {
  push_activation(layer.activation, layer.alpha);
  if (layer.activation == Activation::kRelu) model_.net->set_newest_role({NodeRole::kRelu, 0, {}});
}

void GraphBuilder::build(const Upsampling2dLayer& layer) {
  const auto size = expand(layer.size, 2, {2});
  auto options = F::InterpolateFuncOptions().scale_factor(std::vector<double>{static_cast<double>(size[0]),
                                                                              static_cast<double>(size[1])});
  if (layer.interpolation == Interpolation::kBilinear) options.mode(torch::kBilinear).align_corners(false);
  else options.mode(torch::kNearest);
  push(nn::Functional([options](const torch::Tensor& x) { return F::interpolate(x, options); }));
}

template <LayerKind kind>
void GraphBuilder::build(const Padding2dLayer<kind>& layer) {
  const auto [top, bottom, left, right] = sides(layer.padding);
  auto options = F::PadFuncOptions({left, right, top, bottom});
  if constexpr (kind != LayerKind::kZeroPadding2d) {
    // Reflection repeats no edge pixel, so it needs more rows than it adds.
    const int64_t height = probe().size(2), width = probe().size(3);
    if (kind == LayerKind::kReflectionPadding2d && (std::max(top, bottom) >= height || std::max(left, right) >= width))
      fail("reflection padding of " + std::to_string(std::max(top, bottom)) + " rows and " +
           std::to_string(std::max(left, right)) + " columns needs an input larger than that");
    options.mode(kind == LayerKind::kReflectionPadding2d ? F::PadFuncOptions::mode_t(torch::kReflect)
                                                          : F::PadFuncOptions::mode_t(torch::kReplicate));
  }
  push(SpatialPad(options));
  if constexpr (kind == LayerKind::kReflectionPadding2d)
    model_.net->set_newest_role({NodeRole::kReflectionPadding, 0, {top, bottom, left, right}});
}

void GraphBuilder::build(const Cropping2dLayer& layer) {
  const auto [top, bottom, left, right] = sides(layer.cropping);
  const int64_t height = probe().size(2) - top - bottom, width = probe().size(3) - left - right;
  if (height <= 0 || width <= 0)
    fail("cropping " + std::to_string(top + bottom) + " rows and " + std::to_string(left + right) +
         " columns leaves nothing");
  push(Crop2d(top, bottom, left, right));
}

void GraphBuilder::build(const ReshapeLayer& layer) {
  const auto& given = layer.target_shape.sizes;
  const int64_t values = probe().numel() / std::max<int64_t>(probe().size(0), 1);
  int64_t known = 1;
  for (int64_t size : given) known *= size == -1 ? 1 : size;
  std::vector<int64_t> sizes = given;
  for (auto& size : sizes)
    if (size == -1 && known > 0 && values % known == 0) size = values / known;
  int64_t total = 1;
  for (int64_t size : sizes) total *= size;
  if (total != values)
    fail("target_shape " + shape_text(given) + " does not hold the input's " + std::to_string(values) + " values");
  push(nn::Functional([sizes](const torch::Tensor& x) {
    std::vector<int64_t> shape{x.size(0)};
    shape.insert(shape.end(), sizes.begin(), sizes.end());
    return x.reshape(shape);
  }));
}

void GraphBuilder::build(const PermuteLayer& layer) {
  const auto& dims = layer.dims;
  if (static_cast<int64_t>(dims.size()) != probe().dim() - 1)
    fail("dims has " + std::to_string(dims.size()) + " entries; the input has " + std::to_string(probe().dim() - 1) +
         " dimensions after the batch's");
  std::vector<int64_t> order{0};
  order.insert(order.end(), dims.begin(), dims.end());
  push(nn::Functional([order](const torch::Tensor& x) { return x.permute(order); }));
}

void GraphBuilder::build(const DenseLayer& layer) {
  const int64_t units = resolve(layer.units, "units");
  nn::Linear linear(nn::LinearOptions(probe().size(1), units).bias(layer.use_bias));
  initialise(layer, linear->weight, linear->bias, probe().size(1), units);
  push(linear);
  push_activation(layer.activation);
}

void GraphBuilder::build(const BatchNormLayer& layer) {
  const double momentum = 1.0 - layer.momentum;  // Keras keeps, LibTorch adds
  int64_t values_a_channel = 1;
  for (int64_t d = 2; d < probe().dim(); ++d) values_a_channel *= probe().size(d);
  if (values_a_channel == 1 && !current_.frozen && model_.batch_of_one_refused_by.empty())
    model_.batch_of_one_refused_by = current_.path + " (batchnorm)";
  if (probe().dim() == 4) push(nn::BatchNorm2d(nn::BatchNorm2dOptions(channels()).momentum(momentum).eps(layer.epsilon)));
  else push(nn::BatchNorm1d(nn::BatchNorm1dOptions(channels()).momentum(momentum).eps(layer.epsilon)));
}

void GraphBuilder::build(const LayerNormLayer& layer) {
  push(ChannelLayerNorm(channels(), layer.epsilon, layer.center, layer.scale));
}

void GraphBuilder::build(const GroupNormLayer& norm) { add_group_norm(norm.groups, norm); }
void GraphBuilder::build(const InstanceNormLayer& norm) {
  add_group_norm(channels(), norm);
  model_.net->set_newest_role({NodeRole::kInstanceNorm, 0, {}});
}

void GraphBuilder::add_group_norm(int64_t groups, const ChannelNormKeys& norm) {
  if (channels() % groups != 0)
    fail("groups: " + std::to_string(groups) + " does not divide the input's " + std::to_string(channels()) +
         " channels");
  push(DeviceGroupNorm(nn::GroupNormOptions(groups, channels()).eps(norm.epsilon).affine(norm.center)));
}

void GraphBuilder::build(const RescalingLayer& layer) {
  push(nn::Functional([scale = layer.scale, offset = layer.offset](const torch::Tensor& x) {
    return x * scale + offset;
  }));
}

void GraphBuilder::build(const TorchScriptLayer& layer) {
  model_.scripted = true;
  push(ScriptedModule(layer.path, current_.path + ".path"));
}

}  // namespace trainer
