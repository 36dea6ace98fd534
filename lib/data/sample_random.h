#pragma once
// The generator of one sample's random choices, seeded by (seed, epoch,
// sample id, purpose) in full: a resumed epoch draws the same, whatever
// loader thread makes the sample.
#include <cstdint>
#include <initializer_list>
#include <random>
#include <vector>

namespace trainer {

// std::seed_seq takes 32-bit words: each part goes in as two.
inline std::mt19937_64 sample_generator(std::initializer_list<int64_t> parts) {
  std::vector<uint32_t> words;
  for (int64_t part : parts) {
    words.push_back(static_cast<uint32_t>(static_cast<uint64_t>(part)));
    words.push_back(static_cast<uint32_t>(static_cast<uint64_t>(part) >> 32));
  }
  std::seed_seq sequence(words.begin(), words.end());
  return std::mt19937_64(sequence);
}

}  // namespace trainer
