// The fused norm chain's dropout draws (norm_chain_math.h): Philox 4x32-10
// against PyTorch's own Philox engine and the published known answers, and
// the four-at-a-time draws the CUDA kernels take against one draw per
// element.
#include <catch2/catch.hpp>

#include <ATen/core/PhiloxRNGEngine.h>

#include <array>
#include <cstdint>

#include "fused/norm_chain_math.h"

namespace trainer::fused {
namespace {

std::array<uint32_t, 4> block_of(uint64_t seed, uint64_t block, uint64_t offset) {
  std::array<uint32_t, 4> words{};
  philox_block(seed, block, offset, words.data());
  return words;
}

TEST_CASE("Philox 4x32-10 gives Random123's known answers", "[fused]") {
  // Counter {0, 0, 0, 0} and key {0, 0}: block 0, offset 0, seed 0.
  CHECK(block_of(0, 0, 0) == std::array<uint32_t, 4>{0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u});
  // Every bit set in counter and key.
  CHECK(block_of(~0ull, ~0ull, ~0ull) == std::array<uint32_t, 4>{0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu});
}

TEST_CASE("Philox blocks equal PyTorch's Philox engine: the block as its counter, the offset as its subsequence",
          "[fused]") {
  for (uint64_t seed : {0ull, 67280421310721ull, 0x0123456789abcdefull})
    for (uint64_t offset : {0ull, 4ull, 1ull << 33})
      for (uint64_t block : {0ull, 1ull, 1023ull, (1ull << 32) + 5}) {
        INFO("seed " << seed << " offset " << offset << " block " << block);
        at::Philox4_32 engine(seed, offset, block);
        const std::array<uint32_t, 4> expected{engine(), engine(), engine(), engine()};
        CHECK(block_of(seed, block, offset) == expected);
      }
}

TEST_CASE("kept_bits draws four neighbours as four single draws would, inside a block and across two", "[fused]") {
  const uint64_t seed = 0x9e3779b97f4a7c15ull, offset = 12;
  int kept = 0, drawn = 0;
  for (uint64_t first = 0; first < 64; ++first)
    for (int count = 1; count <= 4; ++count) {
      const unsigned bits = kept_bits(seed, first, offset, 0.5f, count);
      INFO("first " << first << " count " << count);
      CHECK(bits >> count == 0u);
      for (int j = 0; j < count; ++j) {
        const bool single = dropout_keeps(philox_word(seed, first + static_cast<uint64_t>(j), offset), 0.5f);
        CHECK(((bits >> j) & 1u) == static_cast<unsigned>(single));
        kept += single ? 1 : 0;
        ++drawn;
      }
    }
  // Not a constant: about half of the elements kept at keep 0.5.
  CHECK(kept > drawn / 3);
  CHECK(kept < 2 * drawn / 3);
}

}  // namespace
}  // namespace trainer::fused
