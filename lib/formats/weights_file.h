#pragma once
// Weights in the files Python reads without trainer: safetensors (an 8-byte
// little-endian header length, a JSON header naming each tensor's dtype,
// shape and byte range, then the raw little-endian data) and NumPy's .npz
// (a zip of one .npy file per tensor, stored). Both written from their
// published specifications. Torch-free.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace trainer {

struct NamedArray {
  std::string name;            // "layers.0.weight"
  std::string dtype;           // safetensors' names: F32, F64, F16, BF16, I64, I32, U8, BOOL
  std::vector<int64_t> shape;  // row-major (C order)
  std::string bytes;           // little-endian, product(shape) x the dtype's size
};

// The whole .safetensors file; `metadata` goes to the header's __metadata__.
std::string safetensors_bytes(const std::vector<NamedArray>& arrays, const std::map<std::string, std::string>& metadata);

// The whole .npz file: NAME.npy members, format 1.0. BF16 has no NumPy
// dtype: such arrays must be converted first (std::invalid_argument). Over
// 4 GiB needs ZIP64, which this writer refuses (std::length_error).
std::string npz_bytes(const std::vector<NamedArray>& arrays);

// The arrays of a .safetensors file, in the header's order (its
// __metadata__ left out). Throws DataError naming `name` when the header is
// not such a file's (its length, JSON, a dtype, or byte ranges outside the
// data or not the shape's size).
std::vector<NamedArray> read_safetensors(const std::string& bytes, const std::string& name);

// The arrays of an .npz file (NAME.npy members, stored or deflated), each
// with its dtype named as safetensors names it. Throws DataError for a
// member that is not a C-order array of a dtype safetensors has.
std::vector<NamedArray> read_npz(const std::string& bytes, const std::string& name);

// Bytes per element of a safetensors dtype name; 0 for an unknown one.
int64_t dtype_size(const std::string& dtype);

}  // namespace trainer
