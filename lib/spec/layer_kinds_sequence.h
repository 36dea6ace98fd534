#pragma once
// The layer kinds of sequence models: recurrent layers, attention and the
// position embedding transformers need. Sequences are channels-first, as
// the embedding outputs them: (None, features, length). A mask from an
// `embedding` with `mask_zero: true` makes them skip padding.
// See spec/layer_kinds.h.
#include <string>

#include "spec/layer_basics.h"
#include "spec/layer_kinds_core.h"

namespace trainer {

// lstm and gru (Keras LSTM, GRU with reset_after: PyTorch's formulation).
template <LayerKind K>
struct RecurrentLayer : KernelKeys {
  static constexpr LayerKind kind = K;
  static constexpr const char* name = K == LayerKind::kLstm ? "lstm" : "gru";
  static constexpr LayerInput input = LayerInput::kSequence;
  static constexpr MaskRule mask = MaskRule::kKeepsSequences;
  static constexpr bool is_lstm = K == LayerKind::kLstm;
  SizeRef units = SizeRef::of(0);
  bool return_sequences = false;
  bool bidirectional = false;
  double dropout = 0.0;
  Initializer recurrent_initializer = Initializer::kDefault;

  template <class V> void fields(V& v) {
    v("units", units, "Size of the state (per direction).");
    v("return_sequences", return_sequences, "Output every step, (None, units, length), instead of the last state.");
    v("bidirectional", bidirectional, "Also read the sequence backwards and join both (Keras Bidirectional, concat).");
    v("dropout", dropout, "Fraction of the input features dropped while training (one mask for all steps).",
      unit_interval());
    kernel_fields(v);
    v("recurrent_initializer", recurrent_initializer,
      "The state-to-state kernel's: as kernel_initializer; default (model.init: keras) is orthogonal, as Keras's.");
  }
  void check(LayerProblems& p) const {
    check_kernel_fields(p);
    if (!is_positive_size(units)) p.bad("units", "expected a positive integer");
  }
  bool is_quiet_default(const std::string& key) const {
    return KernelKeys::is_quiet_default(key) ||
           (key == "recurrent_initializer" && recurrent_initializer == Initializer::kDefault);
  }
};

// A learned vector per position added to the sequence (keras_hub PositionEmbedding).
struct PositionalEmbeddingLayer : NoKeys {
  static constexpr LayerKind kind = LayerKind::kPositionalEmbedding;
  static constexpr const char* name = "positional_embedding";
  static constexpr LayerInput input = LayerInput::kSequence;
  static constexpr MaskRule mask = MaskRule::kKeeps;
};

// The keys of the attention layers.
struct AttentionKeys : KernelKeys {
  int64_t num_heads = 2;
  double dropout = 0.0;
  bool causal = false;

  template <class V> void causal_field(V& v) {
    v("causal", causal, "Each step attends only to itself and earlier steps (Keras's use_causal_mask), as "
                        "decoders and next-token models need.");
  }
};

// Self-attention over the sequence (Keras MultiHeadAttention with query,
// key and value the same tensor); the output has the input's features.
struct MultiHeadAttentionLayer : AttentionKeys {
  static constexpr LayerKind kind = LayerKind::kMultiHeadAttention;
  static constexpr const char* name = "multi_head_attention";
  static constexpr LayerInput input = LayerInput::kSequence;
  static constexpr MaskRule mask = MaskRule::kKeeps;
  int64_t key_dim = 0;

  template <class V> void fields(V& v) {
    v("num_heads", num_heads, "Attention heads.", at_least(1));
    v("key_dim", key_dim, "Size of each head's queries, keys and values; 0 = features / num_heads.", at_least(0));
    v("dropout", dropout, "Dropout on the attention weights while training.", unit_interval());
    causal_field(v);
    kernel_fields(v);
  }
  void check(LayerProblems& p) const { check_kernel_fields(p); }
};

// keras_hub TransformerEncoder (post-norm): x = norm(x + attention(x)),
// x = norm(x + dense(relu(dense(x)))); causal on request.
struct TransformerEncoderLayer : AttentionKeys {
  static constexpr LayerKind kind = LayerKind::kTransformerEncoder;
  static constexpr const char* name = "transformer_encoder";
  static constexpr LayerInput input = LayerInput::kSequence;
  static constexpr MaskRule mask = MaskRule::kKeeps;
  int64_t intermediate_dim = 0;

  template <class V> void fields(V& v) {
    v("num_heads", num_heads, "Attention heads; each has features / num_heads dimensions.", at_least(1));
    v("intermediate_dim", intermediate_dim, "Width of the feed-forward layer.", at_least(1));
    v("dropout", dropout, "Dropout after the attention and the feed-forward layer while training.",
      unit_interval());
    causal_field(v);
    kernel_fields(v);
  }
  void check(LayerProblems& p) const {
    check_kernel_fields(p);
    if (intermediate_dim < 1) p.missing("intermediate_dim");
  }
};

}  // namespace trainer
