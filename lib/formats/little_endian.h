#pragma once
// Integers in the little-endian byte order of the formats trainer reads and
// writes (zip, .npy, safetensors), whatever the host's order.
#include <cstdint>
#include <string>

namespace trainer {

inline void put_le(std::string& out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

// The `bytes`-byte little-endian integer at `at`.
inline uint64_t get_le(const char* at, int bytes) {
  uint64_t value = 0;
  for (int i = 0; i < bytes; ++i) value |= static_cast<uint64_t>(static_cast<unsigned char>(at[i])) << (8 * i);
  return value;
}

}  // namespace trainer
