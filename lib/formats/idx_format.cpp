#include "formats/idx_format.h"

#include <cstdio>
#include <limits>

#include "util/error.h"

namespace trainer {
namespace {

struct IdxHeader {
  std::vector<int64_t> dims;
  uint64_t header_bytes = 0;
  uint64_t values = 1;
};

IdxHeader parse_header(const std::string& bytes, const std::string& name) {
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(bytes[i]); };
  if (bytes.size() < 4 || byte(0) != 0 || byte(1) != 0)
    throw DataError(name + ": not an IDX file (bad magic number)");
  if (byte(2) != 0x08)
  {
    char type[8];
    std::snprintf(type, sizeof type, "0x%02X", byte(2));
    throw DataError(name + ": IDX element type " + type + " is not supported (expected unsigned bytes, 0x08)");
  }
  const size_t rank = byte(3);
  if (rank == 0 || bytes.size() < 4 + 4 * rank) throw DataError(name + ": IDX header is truncated");

  IdxHeader header;
  header.header_bytes = 4 + 4 * rank;
  for (size_t d = 0; d < rank; ++d) {
    const size_t at = 4 + 4 * d;
    const uint32_t size = (uint32_t{byte(at)} << 24) | (uint32_t{byte(at + 1)} << 16) |
                          (uint32_t{byte(at + 2)} << 8) | uint32_t{byte(at + 3)};
    header.dims.push_back(size);
    // The file size must fit too; int64 for the tensors made from it.
    const uint64_t limit = static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) - header.header_bytes;
    if (size != 0 && header.values > limit / size)
      throw DataError(name + ": the IDX header's sizes multiply to more than 2^63 values (a corrupt header)",
                      "re-install or re-download the file");
    header.values *= size;
  }
  return header;
}

}  // namespace

uint64_t idx_file_size(const std::string& head, const std::string& name) {
  const IdxHeader header = parse_header(head, name);
  return header.header_bytes + header.values;
}

std::vector<int64_t> idx_dims(const std::string& head, const std::string& name) {
  return parse_header(head, name).dims;
}

IdxArray parse_idx(const std::string& bytes, const std::string& name) {
  const IdxHeader header = parse_header(bytes, name);
  const uint64_t present = bytes.size() - header.header_bytes;
  if (present != header.values)
    throw DataError(name + ": IDX header promises " + std::to_string(header.values) + " values but the file holds " +
                        std::to_string(present) + (present < header.values ? " (truncated)" : ""),
                    "re-install or re-download the file");
  IdxArray array;
  array.dims = header.dims;
  array.values = bytes.substr(header.header_bytes);
  return array;
}

}  // namespace trainer
