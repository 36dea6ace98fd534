#pragma once
// The layer kinds of sequence models: recurrent layers, attention and the
// position embedding transformers need. Sequences are channels-first, as
// the embedding outputs them: (None, features, length). A mask from an
// `embedding` with `mask_zero: true` makes them skip padding.
// See spec/layer_kinds.h.
#include <string>

#include "spec/checks.h"
#include "spec/layer_spec.h"

namespace trainer {

// lstm and gru (Keras LSTM, GRU with reset_after: PyTorch's formulation).
template <LayerKind K>
struct RecurrentLayer {
  static constexpr LayerKind kind = K;
  static constexpr const char* name = K == LayerKind::kLstm ? "lstm" : "gru";
  static constexpr LayerInput input = LayerInput::kSequence;
  static constexpr MaskRule mask = MaskRule::kKeepsSequences;
  template <class V> static void fields(LayerSpec& s, V& v) {
    v("units", s.units, "Size of the state (per direction).");
    v("return_sequences", s.return_sequences, "Output every step, (None, units, length), instead of the last state.");
    v("bidirectional", s.bidirectional, "Also read the sequence backwards and join both (Keras Bidirectional, concat).");
    v("dropout", s.dropout, "Fraction of the input features dropped while training (one mask for all steps).",
      unit_interval());
    kernel_fields(s, v);
    v("recurrent_initializer", s.recurrent_initializer,
      "The state-to-state kernel's: as kernel_initializer; default (model.init: keras) is orthogonal, as Keras's.");
  }
  static void check(const LayerSpec& s, LayerProblems& p) {
    check_kernel_fields(s, p);
    if (s.units.is_keyword() || s.units.value < 1) p.bad("units", "expected a positive integer");
  }
};

// A learned vector per position added to the sequence (keras_hub PositionEmbedding).
struct PositionalEmbeddingLayer {
  static constexpr LayerKind kind = LayerKind::kPositionalEmbedding;
  static constexpr const char* name = "positional_embedding";
  static constexpr LayerInput input = LayerInput::kSequence;
  static constexpr MaskRule mask = MaskRule::kKeeps;
  template <class V> static void fields(LayerSpec&, V&) {}
  static void check(const LayerSpec&, LayerProblems&) {}
};

// Self-attention over the sequence (Keras MultiHeadAttention with query,
// key and value the same tensor); the output has the input's features.
struct MultiHeadAttentionLayer {
  static constexpr LayerKind kind = LayerKind::kMultiHeadAttention;
  static constexpr const char* name = "multi_head_attention";
  static constexpr LayerInput input = LayerInput::kSequence;
  static constexpr MaskRule mask = MaskRule::kKeeps;
  template <class V> static void fields(LayerSpec& s, V& v) {
    v("num_heads", s.num_heads, "Attention heads.", at_least(1));
    v("key_dim", s.key_dim, "Size of each head's queries, keys and values; 0 = features / num_heads.", at_least(0));
    v("dropout", s.dropout, "Dropout on the attention weights while training.", unit_interval());
    v("causal", s.causal, "Each step attends only to itself and earlier steps (Keras's use_causal_mask), as "
      "decoders and next-token models need.");
    kernel_fields(s, v);
  }
  static void check(const LayerSpec& s, LayerProblems& p) { check_kernel_fields(s, p); }
};

// keras_hub TransformerEncoder (post-norm): x = norm(x + attention(x)),
// x = norm(x + dense(relu(dense(x)))); causal on request.
struct TransformerEncoderLayer {
  static constexpr LayerKind kind = LayerKind::kTransformerEncoder;
  static constexpr const char* name = "transformer_encoder";
  static constexpr LayerInput input = LayerInput::kSequence;
  static constexpr MaskRule mask = MaskRule::kKeeps;
  template <class V> static void fields(LayerSpec& s, V& v) {
    v("num_heads", s.num_heads, "Attention heads; each has features / num_heads dimensions.", at_least(1));
    v("intermediate_dim", s.intermediate_dim, "Width of the feed-forward layer.", at_least(1));
    v("dropout", s.dropout, "Dropout after the attention and the feed-forward layer while training.",
      unit_interval());
    v("causal", s.causal, "Each step attends only to itself and earlier steps (Keras's use_causal_mask), as "
      "decoders and next-token models need.");
    kernel_fields(s, v);
  }
  static void check(const LayerSpec& s, LayerProblems& p) {
    check_kernel_fields(s, p);
    if (s.intermediate_dim < 1) p.missing("intermediate_dim");
  }
};

}  // namespace trainer
