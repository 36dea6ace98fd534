#pragma once
// CRC-32C (Castagnoli), and the masked form TFRecord framing stores: a CRC of
// data that itself holds CRCs is weak, so TensorFlow rotates and offsets it.
#include <cstddef>
#include <cstdint>

namespace trainer {

uint32_t crc32c(const void* data, size_t size);
uint32_t masked_crc32c(const void* data, size_t size);

}  // namespace trainer
