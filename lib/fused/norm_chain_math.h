#pragma once
// The arithmetic the fused norm chain's two implementations share (the CUDA
// kernels and the CPU one in norm_chain_cpu.cpp), written once so that they
// compute each element alike: where a padded output element reads from,
// which padded elements a gradient gathers from, the dropout draw, and the
// normalised value. Plain C++ that nvcc also compiles for the device.
#include <math.h>
#include <stdint.h>

#ifdef __CUDACC__
#define TRAINER_HOST_DEVICE __host__ __device__ __forceinline__
#else
#define TRAINER_HOST_DEVICE inline
#endif

namespace trainer::fused {

// The source index of padded index `i` along a dimension of `n` elements
// padded by `before`: reflection about the first and last element, as
// torch's reflection padding (which needs before, after < n).
TRAINER_HOST_DEVICE int64_t reflected_source(int64_t i, int64_t n, int64_t before) {
  const int64_t s = i - before;
  if (s < 0) return -s;
  if (s >= n) return 2 * (n - 1) - s;
  return s;
}

// The padded indices whose source is `s` (1 to 3 of them: itself, and its
// reflections about the first and the last element where the padding
// reaches it), written to out[0 .. count - 1]; returns the count. Their
// gradients are what the reflection's backward sums into `s`. Every slot is
// written, at a constant index: a CUDA kernel that reads them in a loop
// unrolled over all three keeps them in registers, where an index known
// only at run time would put them in memory.
TRAINER_HOST_DEVICE int padded_readers(int64_t s, int64_t n, int64_t before, int64_t after, int64_t out[3]) {
  const bool low = s >= 1 && s <= before;
  const bool high = s <= n - 2 && s >= n - 1 - after;
  const int64_t reflected_high = before + 2 * (n - 1) - s;
  out[0] = s + before;
  out[1] = low ? before - s : reflected_high;
  out[2] = reflected_high;
  return 1 + (low ? 1 : 0) + (high ? 1 : 0);
}

// Philox 4x32 with 10 rounds (Salmon et al. 2011, the generator behind
// PyTorch's CUDA dropout): a counter-based generator, so each element's
// draw depends only on the key, its index and the call's offset, never on
// which thread computes it or in what order. One evaluation gives the four
// words of counter `block`: the draws of elements 4 x block to 4 x block + 3.
TRAINER_HOST_DEVICE void philox_block(uint64_t seed, uint64_t block, uint64_t offset, uint32_t words[4]) {
  uint32_t c0 = static_cast<uint32_t>(block), c1 = static_cast<uint32_t>(block >> 32);
  uint32_t c2 = static_cast<uint32_t>(offset), c3 = static_cast<uint32_t>(offset >> 32);
  uint32_t k0 = static_cast<uint32_t>(seed), k1 = static_cast<uint32_t>(seed >> 32);
  for (int round = 0; round < 10; ++round) {
    const uint64_t p0 = static_cast<uint64_t>(0xD2511F53u) * c0;
    const uint64_t p1 = static_cast<uint64_t>(0xCD9E8D57u) * c2;
    const uint32_t n0 = static_cast<uint32_t>(p1 >> 32) ^ c1 ^ k0;
    const uint32_t n2 = static_cast<uint32_t>(p0 >> 32) ^ c3 ^ k1;
    c1 = static_cast<uint32_t>(p1);
    c3 = static_cast<uint32_t>(p0);
    c0 = n0;
    c2 = n2;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  words[0] = c0;
  words[1] = c1;
  words[2] = c2;
  words[3] = c3;
}

// Word k of a block, by a select rather than an index, which on a GPU would
// move the four words from registers to memory.
TRAINER_HOST_DEVICE uint32_t block_word(const uint32_t words[4], uint64_t k) {
  return k == 0 ? words[0] : k == 1 ? words[1] : k == 2 ? words[2] : words[3];
}

// The draw of element `index`.
TRAINER_HOST_DEVICE uint32_t philox_word(uint64_t seed, uint64_t index, uint64_t offset) {
  uint32_t words[4];
  philox_block(seed, index >> 2, offset, words);
  return block_word(words, index & 3);
}

// Whether dropout keeps the element whose draw is `word`: a uniform in
// [0, 1) from its top 24 bits, below the keep probability.
TRAINER_HOST_DEVICE bool dropout_keeps(uint32_t word, float keep) {
  return static_cast<float>(word >> 8) * (1.0f / 16777216.0f) < keep;
}

// Which of the `count` (1 to 4) elements first .. first + count - 1 dropout
// keeps: bit j for element first + j, each as dropout_keeps(philox_word(...))
// says. One Philox evaluation serves all four where they share a block
// (first a multiple of 4), two where they straddle two: the kernels take
// elements four at a time so as to draw once for four, not four times.
TRAINER_HOST_DEVICE unsigned kept_bits(uint64_t seed, uint64_t first, uint64_t offset, float keep, int count) {
  uint32_t words[4];
  uint64_t block = first >> 2;
  philox_block(seed, block, offset, words);
  unsigned bits = 0;
  for (int j = 0; j < count; ++j) {
    const uint64_t index = first + static_cast<uint64_t>(j);
    if ((index >> 2) != block) {
      block = index >> 2;
      philox_block(seed, block, offset, words);
    }
    if (dropout_keeps(block_word(words, index & 3), keep)) bits |= 1u << j;
  }
  return bits;
}

// (x - mean) * rstd * gamma + beta with one explicit rounding pattern, so
// that the backward pass recomputes exactly the value the forward pass
// compared with zero (an implicit fused multiply-add could differ between
// the two kernels).
TRAINER_HOST_DEVICE float normalised(float x, float mean, float rstd, float gamma, float beta) {
  const float centred = x - mean;
  const float scaled = centred * rstd;
  return fmaf(scaled, gamma, beta);
}

}  // namespace trainer::fused
