#pragma once
// The modules of sequence models: recurrent layers, self-attention, the
// transformer encoder and the position embedding. Sequences are
// channels-first, [N, features, length], as the embedding outputs them.
//
// Masks: an embedding with mask_zero marks token 0 as padding. The graph
// computes the mask once per batch from its token input (SequenceMask), and
// the layers built to honour it read it from there, as Keras propagates a
// mask alongside the tensors: the recurrent layers skip padded steps (their
// state carries over them), attention never attends to them, and global
// pooling leaves them out.
#include <torch/torch.h>

#include <memory>

namespace trainer {

// The batch's padding mask: [N, length] bool, true where a token is real.
struct SequenceMask {
  torch::Tensor valid;
};

// One weight matrix of a layer with its bias (undefined where it has none),
// and the fans of Keras's layout of it, for the builder's initialisers and
// kernel penalties (GraphBuilder::initialise).
struct KernelRef {
  torch::Tensor weight, bias;
  int64_t fan_in = 0, fan_out = 0;
  bool recurrent = false;  // a state-to-state kernel: recurrent_initializer's, no penalty
};

// lstm (Keras LSTM: one bias per gate) or gru (Keras GRU with reset_after,
// PyTorch's formulation: input and recurrent biases), one layer, optionally
// bidirectional. Output: every step [N, directions * units, length], or the
// last state of each direction joined, [N, directions * units].
class RecurrentImpl : public torch::nn::Module {
 public:
  struct Options {
    bool lstm = true;
    int64_t input = 0, units = 0;
    bool bidirectional = false, return_sequences = false;
    double dropout = 0;
  };
  RecurrentImpl(const Options& options, std::shared_ptr<SequenceMask> mask);
  torch::Tensor forward(const torch::Tensor& x);

  // Per direction: the input kernel with its bias, Keras's (input, gates),
  // and the recurrent kernel, (units, gates), with the GRU's recurrent bias.
  std::vector<KernelRef> kernels() const;
  bool is_lstm() const { return options_.lstm; }
  int64_t units() const { return options_.units; }

 private:
  std::vector<torch::Tensor> flat_weights() const;
  Options options_;
  std::shared_ptr<SequenceMask> mask_;
  std::vector<torch::Tensor> weight_ih_, weight_hh_, bias_ih_, bias_hh_;  // per direction; bias_hh_ gru only
};
TORCH_MODULE(Recurrent);

// Keras MultiHeadAttention as self-attention: scaled dot products of
// `heads` projections of size key_dim, masked, then projected back to the
// input's features.
class SelfAttentionImpl : public torch::nn::Module {
 public:
  SelfAttentionImpl(int64_t features, int64_t heads, int64_t key_dim, double dropout, bool causal,
                    std::shared_ptr<SequenceMask> mask);
  torch::Tensor forward(const torch::Tensor& x);
  // Query, key, value and output projections with Keras's EinsumDense fans:
  // kernels (features, heads, key_dim) and (heads, key_dim, features).
  std::vector<KernelRef> kernels() const;
  // The products of queries with keys and of scores with values over a
  // sequence of `steps`: no weights, but steps^2 x heads x key_dim each.
  int64_t score_multiply_adds(int64_t steps) const { return 2 * steps * steps * heads_ * key_dim_; }

 private:
  int64_t heads_, key_dim_;
  double dropout_;
  bool causal_;  // a query attends to keys at its step and before only
  std::shared_ptr<SequenceMask> mask_;
  torch::nn::Linear query_{nullptr}, key_{nullptr}, value_{nullptr}, output_{nullptr};
};
TORCH_MODULE(SelfAttention);

// keras_hub TransformerEncoder, post-norm: x = norm(x + dropout(attention(x)));
// x = norm(x + dropout(dense(relu(dense(x))))), layer norms of epsilon 1e-5.
class TransformerEncoderImpl : public torch::nn::Module {
 public:
  TransformerEncoderImpl(int64_t features, int64_t heads, int64_t intermediate, double dropout, bool causal,
                         std::shared_ptr<SequenceMask> mask);
  torch::Tensor forward(const torch::Tensor& x);
  // The attention's, then the feed-forward layer's two.
  std::vector<KernelRef> kernels() const;

 private:
  double dropout_;
  SelfAttention attention_{nullptr};
  torch::nn::LayerNorm attention_norm_{nullptr}, feedforward_norm_{nullptr};
  torch::nn::Linear intermediate_{nullptr}, output_{nullptr};
};
TORCH_MODULE(TransformerEncoder);

// A learned vector per position, added: [N, features, length].
class PositionalEmbeddingImpl : public torch::nn::Module {
 public:
  PositionalEmbeddingImpl(int64_t length, int64_t features);
  torch::Tensor forward(const torch::Tensor& x) { return x + weight_.t().unsqueeze(0); }
  torch::Tensor weight_;  // [length, features], as Keras stores it
};
TORCH_MODULE(PositionalEmbedding);

// Mean or maximum over the positions after the channels; with a mask (1-D
// sequences), over the real positions only: [N, C, ...] -> [N, C].
class GlobalPoolImpl : public torch::nn::Module {
 public:
  GlobalPoolImpl(bool max, std::shared_ptr<SequenceMask> mask) : max_(max), mask_(std::move(mask)) {}
  torch::Tensor forward(const torch::Tensor& x);

 private:
  bool max_;
  std::shared_ptr<SequenceMask> mask_;
};
TORCH_MODULE(GlobalPool);

}  // namespace trainer
