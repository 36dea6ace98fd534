#pragma once
// The IDX format of MNIST and Fashion-MNIST: magic (0, 0, type, rank), `rank`
// big-endian uint32 sizes, then the values. Only unsigned bytes (type 0x08)
// occur in these data sets.
#include <cstdint>
#include <string>
#include <vector>

namespace trainer {

struct IdxArray {
  std::vector<int64_t> dims;
  std::string values;  // one byte per element
};

// The longest IDX header: magic and 255 sizes.
constexpr size_t kMaxIdxHeaderBytes = 4 + 4 * 255;

// The size in bytes of the IDX file whose first bytes are `head` (at least
// its header), from the header alone. Throws DataError on a bad header or
// sizes whose product does not fit 64 bits.
uint64_t idx_file_size(const std::string& head, const std::string& name);

// The sizes the IDX header at the start of `head` gives (N x rows x columns
// for images). Throws DataError as idx_file_size.
std::vector<int64_t> idx_dims(const std::string& head, const std::string& name);

// `name` is used in error messages. Throws DataError on a bad header or size.
IdxArray parse_idx(const std::string& bytes, const std::string& name);

}  // namespace trainer
