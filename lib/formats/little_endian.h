#pragma once
// Appends integers in the little-endian byte order of the formats trainer
// writes (zip, .npy, safetensors), whatever the host's order.
#include <cstdint>
#include <string>

namespace trainer {

inline void put_le(std::string& out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

}  // namespace trainer
