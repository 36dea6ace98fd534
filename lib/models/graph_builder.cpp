#include "models/graph_builder.h"

#include <fnmatch.h>

#include <regex>
#include <utility>

#include "config/validate_graph.h"
#include "models/initializers.h"
#include "models/multiply_adds.h"
#include "util/error.h"
#include "util/text.h"
#include "util/torch_compat.h"

namespace trainer {
namespace {

namespace nn = torch::nn;

std::vector<int64_t> shape_of(const torch::Tensor& probe) {
  auto sizes = probe.sizes().vec();
  sizes.erase(sizes.begin());
  return sizes;
}

bool is_max_pool(LayerKind kind) {
  return kind == LayerKind::kMaxPool1d || kind == LayerKind::kMaxPool2d;
}

// Whether a layer's output carries the padding mask, by its kind's rule.
template <class Kind>
bool output_masked(const Kind& layer, bool input_masked) {
  if constexpr (Kind::mask == MaskRule::kDrops) return false;
  else if constexpr (Kind::mask == MaskRule::kKeeps || Kind::mask == MaskRule::kAnyInput) return input_masked;
  else if constexpr (Kind::mask == MaskRule::kKeepsSequences) return input_masked && layer.return_sequences;
  else if constexpr (Kind::mask == MaskRule::kFromMaskZero) return layer.mask_zero;
}

bool is_monotonic(Activation a) { return a == Activation::kRelu || a == Activation::kTanh || a == Activation::kSigmoid; }

nn::AnyModule activation_module(Activation activation, std::optional<double> alpha) {
  switch (activation) {
    case Activation::kRelu: return nn::AnyModule(nn::Functional(torch::relu));
    case Activation::kTanh: return nn::AnyModule(nn::Functional(torch::tanh));
    case Activation::kSigmoid: return nn::AnyModule(nn::Functional(torch::sigmoid));
    case Activation::kGelu: return nn::AnyModule(nn::GELU());
    case Activation::kSoftmax: return nn::AnyModule(nn::Softmax(1));
    case Activation::kLeakyRelu: return nn::AnyModule(nn::LeakyReLU(nn::LeakyReLUOptions().negative_slope(alpha.value_or(0.2))));
    case Activation::kElu: return nn::AnyModule(nn::ELU(nn::ELUOptions().alpha(alpha.value_or(1.0))));
    case Activation::kSilu:
    case Activation::kSwish: return nn::AnyModule(nn::SiLU());
    case Activation::kSoftplus: return nn::AnyModule(nn::Softplus());
    case Activation::kLinear: break;
  }
  return {};
}

MergeOp merge_op(LayerKind kind) {
  switch (kind) {
    case LayerKind::kAdd: return MergeOp::kAdd;
    case LayerKind::kMultiply: return MergeOp::kMultiply;
    case LayerKind::kAverage: return MergeOp::kAverage;
    case LayerKind::kConcatenate: return MergeOp::kConcatenate;
    default: return MergeOp::kNone;
  }
}

}  // namespace

GraphBuilder::GraphBuilder(const ModelConfig& config, const DataInfo& data) : config_(config), data_(data) {
  std::vector<int64_t> shape{1};
  shape.insert(shape.end(), data.input_shape.begin(), data.input_shape.end());
  probes_.push_back(data.token_inputs ? torch::zeros(shape, torch::kInt64) : torch::zeros(shape));
  slot_rows_.push_back(kModelInputName);
  slot_masked_.push_back(false);
  model_.net = GraphNet();
}

Model GraphBuilder::build() {
  torch::NoGradGuard no_grad;
  build_list(config_.layers, 0, "model.layers", /*top_level=*/true);
  if (model_.is_graph) {
    LayerSummary input_row{kModelInputName, shape_of(probes_.front()), 0, 0, 0, {}};
    model_.summary.insert(model_.summary.begin(), input_row);
  }
  model_.net->sequence_mask()->valid = torch::Tensor();
  check_freeze_patterns();
  model_.train_mode();
  use_channels_last_for_images();
  return std::move(model_);
}

bool GraphBuilder::frozen(const LayerSpec& layer, const std::string& name) {
  bool frozen = in_frozen_block_ || !layer.trainable;
  freeze_used_.resize(config_.freeze.size(), false);
  for (size_t i = 0; i < config_.freeze.size(); ++i)
    if (fnmatch(config_.freeze[i].c_str(), name.c_str(), 0) == 0) {
      freeze_used_[i] = true;
      frozen = true;
    }
  return frozen;
}

void GraphBuilder::check_freeze_patterns() const {
  std::vector<std::string> problems;
  for (size_t i = 0; i < config_.freeze.size(); ++i) {
    if (i < freeze_used_.size() && freeze_used_[i]) continue;
    std::vector<std::string> layers;
    for (const auto& row : model_.summary)
      if (row.name != kModelInputName) layers.push_back(row.name);
    problems.push_back("model.freeze[" + std::to_string(i) + "]: '" + config_.freeze[i] +
                       "' names no layer; the layers: " + join(layers, ", "));
  }
  if (!problems.empty()) throw ConfigError(problems);
}

int GraphBuilder::build_list(const std::vector<LayerSpec>& layers, int slot, const std::string& prefix,
                             bool top_level) {
  for (size_t i = 0; i < layers.size(); ++i) {
    const LayerSpec& layer = layers[i];
    const std::string path = prefix + "[" + std::to_string(i) + "]";
    const bool last = i + 1 == layers.size();
    for (int64_t copy = 0; copy < layer.repeat; ++copy) {
      std::vector<int> inputs{slot};
      if (copy == 0 && !layer.inputs.empty()) {
        inputs.clear();
        for (const auto& name : layer.inputs) inputs.push_back(lookup(name));
        model_.is_graph = true;
      }
      const bool last_copy = copy + 1 == layer.repeat;
      // A monotonic activation commutes with a max pool that alone reads its output.
      const bool before_max_pool = last_copy && !last && layer.name.empty() && is_max_pool(layers[i + 1].type()) &&
                                   layers[i + 1].inputs.empty();
      slot = build_layer(layer, path, inputs, row_name(layer, copy), top_level && last && last_copy, before_max_pool);
    }
    if (!layer.name.empty()) names_[layer.name] = slot;
  }
  return slot;
}

int GraphBuilder::lookup(const std::string& name) const {
  if (name == kModelInputName) return 0;
  // validate_graph() has checked that every name read is defined before.
  return names_.at(name);
}

std::string GraphBuilder::row_name(const LayerSpec& layer, int64_t copy) {
  if (!layer.name.empty()) return layer.repeat > 1 ? layer.name + "_" + std::to_string(copy + 1) : layer.name;
  // Keras names: conv1d, conv1d_1, conv1d_2, ...
  const std::string base = to_string(layer.type());
  const int used = names_used_[base]++;
  return used ? base + "_" + std::to_string(used) : base;
}

int GraphBuilder::build_layer(const LayerSpec& layer, const std::string& path, std::vector<int> inputs,
                              const std::string& name, bool is_output, bool before_max_pool) {
  current_ = {&layer, path, is_output, before_max_pool, name, frozen(layer, name)};
  int slot = -1;
  std::visit([&](const auto& entry) {
    using Kind = std::decay_t<decltype(entry)>;
    if constexpr (Kind::input == LayerInput::kBlock) {
      slot = build_residual(layer, entry, path, inputs.front());
      return;
    } else {
      int64_t axis = 1;  // concatenate's
      if constexpr (std::is_same_v<Kind, ConcatenateLayer>) axis = entry.axis;
      node_ = model_.net->add_node(inputs, merge_op(Kind::kind), axis);
      parts_ = 0;
      row_parameters_ = row_trainable_ = row_multiply_adds_ = 0;
      input_masked_ = false;
      for (int input : inputs) input_masked_ = input_masked_ || slot_masked_[static_cast<size_t>(input)];
      if constexpr (Kind::input == LayerInput::kMerge) {
        merge(inputs, Kind::kind, axis);
        push_activation(entry.activation);
        output_masked_ = output_masked(entry, input_masked_);
      } else {
        output_masked_ = output_masked(entry, input_masked_);
        probes_.push_back(probes_[static_cast<size_t>(inputs.front())]);
        require(Kind::input);
        try {
          build_single(layer);
        } catch (const std::bad_alloc&) {
          fail_out_of_memory("");
        } catch (const c10::Error& e) {
          if (!compat::is_cpu_allocation_failure(e)) throw;
          fail_out_of_memory(e.what_without_backtrace());
        }
      }
      slot = node_;
      add_row(name, slot, inputs);
    }
  }, layer.keys);
  return slot;
}

int GraphBuilder::build_residual(const LayerSpec& layer, const ResidualLayer& block, const std::string& path,
                                 int input) {
  model_.is_graph = true;
  // A frozen block's body and shortcut are frozen with it.
  const bool outer_frozen = std::exchange(in_frozen_block_, current_.frozen);
  const int body = build_list(block.layers, input, path + ".layers", false);
  const int shortcut = block.shortcut.empty() ? input : build_list(block.shortcut, input, path + ".shortcut", false);
  in_frozen_block_ = outer_frozen;
  current_.layer = &layer;
  current_.path = path;
  const torch::Tensor body_probe = probes_[static_cast<size_t>(body)];
  const torch::Tensor shortcut_probe = probes_[static_cast<size_t>(shortcut)];
  if (body_probe.sizes() != shortcut_probe.sizes()) {
    fail_at(probes_[static_cast<size_t>(input)],
            "the block's layers output " + shape_text(shape_of(body_probe)) + " and its shortcut " +
                shape_text(shape_of(shortcut_probe)) + "; they must be equal to add" +
                (block.shortcut.empty() ? " (give `shortcut:` layers, e.g. a 1x1 conv2d and a batchnorm)" : ""));
  }
  node_ = model_.net->add_node({body, shortcut}, MergeOp::kAdd);
  parts_ = 0;
  row_parameters_ = row_trainable_ = row_multiply_adds_ = 0;
  probes_.push_back(model_.net->merge_newest({body_probe, shortcut_probe}));
  push_activation(block.activation);
  output_masked_ = slot_masked_[static_cast<size_t>(body)] || slot_masked_[static_cast<size_t>(shortcut)];
  LayerSpec add;
  add.keys = ElementwiseMergeLayer<LayerKind::kAdd>{};
  add_row(row_name(add, 0), node_, {body, shortcut});
  return node_;
}

void GraphBuilder::merge(const std::vector<int>& inputs, LayerKind kind, int64_t axis) {
  std::vector<torch::Tensor> tensors;
  for (int slot : inputs) tensors.push_back(probes_[static_cast<size_t>(slot)]);
  const auto& first = tensors.front();
  std::vector<std::string> shapes;
  for (size_t i = 0; i < tensors.size(); ++i)
    shapes.push_back(shape_text(shape_of(tensors[i])) + " from " + slot_rows_[static_cast<size_t>(inputs[i])]);
  const auto mismatch = [&](const std::string& why) { fail_at(first, why + ": " + join(shapes, ", ")); };
  for (const auto& t : tensors)
    if (torch::isFloatingType(t.scalar_type()) != torch::isFloatingType(first.scalar_type()))
      mismatch("cannot merge integer tokens with float tensors");
  if (kind == LayerKind::kConcatenate) {
    const int64_t rank = first.dim();
    const int64_t dim = axis < 0 ? axis + rank : axis;
    if (dim <= 0 || dim >= rank) mismatch("axis " + std::to_string(axis) + " is not an axis of the inputs");
    for (const auto& t : tensors) {
      bool fits = t.dim() == rank;
      for (int64_t d = 1; fits && d < rank; ++d) fits = d == dim || t.size(d) == first.size(d);
      if (!fits) mismatch("concatenate needs equal shapes apart from axis " + std::to_string(axis));
    }
  } else {
    for (const auto& t : tensors)
      if (t.sizes() != first.sizes()) mismatch(std::string(to_string(kind)) + " needs inputs of one shape");
  }
  probes_.push_back(model_.net->merge_newest(tensors));
}

void GraphBuilder::add_row(const std::string& name, int slot, const std::vector<int>& inputs) {
  std::vector<std::string> connected;
  for (int input : inputs) connected.push_back(slot_rows_[static_cast<size_t>(input)]);
  slot_rows_.resize(static_cast<size_t>(slot) + 1);
  slot_rows_[static_cast<size_t>(slot)] = name;
  slot_masked_.resize(static_cast<size_t>(slot) + 1);
  // A mask describes the steps of a sequence: a layer that changed their number dropped it.
  slot_masked_[static_cast<size_t>(slot)] =
      output_masked_ && probe().dim() == 3 && probe().size(2) == probes_.front().size(1);
  model_.summary.push_back(
      {name, shape_of(probes_[static_cast<size_t>(slot)]), row_parameters_, row_trainable_, row_multiply_adds_, connected});
  for (int64_t d = 1; d < probe().dim(); ++d)
    if (probe().size(d) == 0) fail("its output " + shape_text(shape_of(probe())) + " would be empty; the input is too small");
}

void GraphBuilder::fail(const std::string& message) const { fail_at(probe(), message); }

void GraphBuilder::fail_at(const torch::Tensor& input, const std::string& message) const {
  const std::string where = layer().source_location.empty() ? "" : layer().source_location + ": ";
  throw ConfigError({where + current_.path + " (" + to_string(layer().type()) + ", input " +
                     shape_text(shape_of(input)) + "): " + message});
}

// A layer whose weights do not fit: the layer at fault and the size, not an
// allocator's internal error.
void GraphBuilder::fail_out_of_memory(const std::string& allocator_message) const {
  static const std::regex bytes_pattern(R"(allocate (\d+) bytes)");
  std::smatch match;
  const std::string size = std::regex_search(allocator_message, match, bytes_pattern)
                               ? " (" + format_mib(std::stoll(match[1].str())) + " in one tensor)"
                               : std::string();
  throw OutOfMemoryError(current_.path + " (" + to_string(layer().type()) + ", input " + shape_text(shape_of(probe())) +
                             "): its weights do not fit in this machine's memory" + size,
                         "make the layer smaller (units, filters, kernel_size) or reduce its input first");
}

void GraphBuilder::push_any(nn::AnyModule module, const std::shared_ptr<nn::Module>& ptr) {
  const std::string module_name = "l" + std::to_string(node_ - 1) + "_" + std::to_string(parts_++);
  model_.module_layers[module_name] = current_.row;
  if (current_.frozen) {
    for (auto& p : ptr->parameters()) p.set_requires_grad(false);
    model_.frozen_modules.push_back(ptr);
  }
  for (const auto& p : ptr->parameters()) {
    row_parameters_ += p.numel();
    row_trainable_ += p.requires_grad() ? p.numel() : 0;
  }
  // Keras counts batchnorm's moving mean and variance as non-trainable weights.
  for (const auto& b : ptr->buffers())
    if (torch::isFloatingType(b.scalar_type())) row_parameters_ += b.numel();
  model_.net->append(module_name, module);
  try {
    ptr->eval();
    const torch::Tensor input = probe();
    probe() = module.forward(input);
    row_multiply_adds_ += forward_multiply_adds(*ptr, input, probe());
  } catch (const c10::Error& e) {
    fail(e.what_without_backtrace());
  }
}

void GraphBuilder::push_activation(Activation activation, std::optional<double> alpha) {
  if (activation == Activation::kLinear) return;
  if (activation == Activation::kSoftmax && current_.is_output) {
    model_.final_softmax = true;  // folded into the loss; see Model
    return;
  }
  // act(max(x)) == max(act(x)) for a non-decreasing act, values and gradients
  // alike: applied after the pool, it touches a quarter of the elements (2x2).
  if (current_.before_max_pool && is_monotonic(activation)) {
    deferred_activation_ = activation;
    return;
  }
  nn::AnyModule module = activation_module(activation, alpha);
  model_.net->append("l" + std::to_string(node_ - 1) + "_" + std::to_string(parts_++), module);
  probe() = module.forward(probe());
}

void GraphBuilder::use_channels_last_for_images() {
  if (data_.input_shape.size() != 3) return;
  model_.channels_last = true;
  for (auto& parameter : model_.net->parameters())
    if (parameter.dim() == 4) parameter.set_data(Model::in_channels_last(parameter));
}

int64_t GraphBuilder::resolve(const SizeRef& size, const char* key) const {
  if (!size.is_keyword()) return size.value;
  const int64_t value = size.keyword == "classes" ? data_.classes : data_.vocabulary;
  if (value <= 0)
    fail(std::string(key) + ": '" + size.keyword + "' is unknown for the " + data_.name + " data set; give a number");
  return value;
}

void GraphBuilder::require(LayerInput input) {
  const bool tokens = !torch::isFloatingType(probe().scalar_type());
  if (tokens && input != LayerInput::kTokens && input != LayerInput::kAny)
    fail("needs float inputs, and these are integer tokens; put an embedding layer first");
  switch (input) {
    case LayerInput::kAny:
    case LayerInput::kMerge:
    case LayerInput::kBlock: return;
    case LayerInput::kTokens:
      if (!data_.token_inputs || probe().dim() != 2 || !tokens) fail("needs integer token inputs of shape (None, length)");
      return;
    case LayerInput::kFlat:
      if (probe().dim() != 2) fail("needs a flat input; put a flatten or global_avgpool layer before it");
      return;
    case LayerInput::kSpatial:
      if (probe().dim() < 3) fail("needs an input with channels and at least one spatial dimension");
      return;
    case LayerInput::kSpatial1d:
      if (probe().dim() != 3) fail("needs an input of shape (None, channels, length)");
      return;
    case LayerInput::kSpatial2d:
      if (probe().dim() != 4) fail("needs an input of shape (None, channels, height, width)");
      return;
    case LayerInput::kSequence:
      if (probe().dim() != 3) fail("needs a sequence of shape (None, features, length); put an embedding first");
      return;
  }
}

Initializer GraphBuilder::scheme(Initializer own, Initializer keras) const {
  if (own != Initializer::kDefault) return own;
  return config_.init == InitScheme::kKeras ? keras : Initializer::kPytorch;
}

void GraphBuilder::initialise(const KernelKeys& keys, torch::Tensor& weight, torch::Tensor& bias, int64_t fan_in,
                              int64_t fan_out) {
  initialise_kernel(weight, scheme(keys.kernel_initializer, Initializer::kGlorotUniform), fan_in, fan_out);
  initialise_bias(bias, scheme(keys.bias_initializer, Initializer::kZeros));
  const WeightRegularizer& penalty = keys.kernel_regularizer;
  if (penalty.any()) model_.penalties.push_back({weight, penalty.l1, penalty.l2});
}

void GraphBuilder::initialise(const KernelKeys& keys, const std::vector<KernelRef>& kernels, Initializer recurrent) {
  for (KernelRef kernel : kernels) {
    if (!kernel.recurrent) {
      initialise(keys, kernel.weight, kernel.bias, kernel.fan_in, kernel.fan_out);
      continue;
    }
    initialise_kernel(kernel.weight, scheme(recurrent, Initializer::kOrthogonal), kernel.fan_in, kernel.fan_out);
    initialise_bias(kernel.bias, scheme(keys.bias_initializer, Initializer::kZeros));
  }
}

Model build_model(const ModelConfig& config, const DataInfo& data) { return GraphBuilder(config, data).build(); }

}  // namespace trainer
