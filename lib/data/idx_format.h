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

// `name` is used in error messages. Throws DataError on a bad header or size.
IdxArray parse_idx(const std::string& bytes, const std::string& name);

}  // namespace trainer
