#include "data/idx_format.h"

#include "util/error.h"

namespace trainer {

IdxArray parse_idx(const std::string& bytes, const std::string& name) {
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(bytes[i]); };
  if (bytes.size() < 4 || byte(0) != 0 || byte(1) != 0)
    throw DataError(name + ": not an IDX file (bad magic number)");
  if (byte(2) != 0x08)
    throw DataError(name + ": IDX element type 0x" + std::to_string(byte(2)) + " is not supported (expected unsigned bytes, 0x08)");
  const size_t rank = byte(3);
  if (rank == 0 || bytes.size() < 4 + 4 * rank) throw DataError(name + ": IDX header is truncated");

  IdxArray array;
  size_t count = 1;
  for (size_t d = 0; d < rank; ++d) {
    const size_t at = 4 + 4 * d;
    const uint32_t size = (uint32_t{byte(at)} << 24) | (uint32_t{byte(at + 1)} << 16) |
                          (uint32_t{byte(at + 2)} << 8) | uint32_t{byte(at + 3)};
    array.dims.push_back(size);
    count *= size;
  }
  const size_t header = 4 + 4 * rank;
  if (bytes.size() - header != count)
    throw DataError(name + ": IDX header promises " + std::to_string(count) + " values but the file holds " +
                        std::to_string(bytes.size() - header) + (bytes.size() - header < count ? " (truncated)" : ""),
                    "re-install or re-download the file");
  array.values = bytes.substr(header);
  return array;
}

}  // namespace trainer
