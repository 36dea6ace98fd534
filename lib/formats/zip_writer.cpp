#include "formats/zip_writer.h"

#include <cstdint>
#include <stdexcept>

#include "formats/little_endian.h"
#include "formats/zip_archive.h"

namespace trainer {
namespace {

// The fields a member's local header and its central directory entry share,
// from "version needed" to the extra field's length.
void put_member_fields(std::string& out, uint32_t crc, uint64_t size, size_t name_size) {
  constexpr uint16_t kVersion = 20;  // 2.0: what stored members need
  constexpr uint16_t kDosDate = (0 << 9) | (1 << 5) | 1;
  put_le(out, kVersion, 2);
  put_le(out, 0, 2);  // flags
  put_le(out, 0, 2);  // stored
  put_le(out, 0, 2);  // time
  put_le(out, kDosDate, 2);
  put_le(out, crc, 4);
  put_le(out, size, 4);  // compressed
  put_le(out, size, 4);
  put_le(out, name_size, 2);
  put_le(out, 0, 2);  // extra
}

}  // namespace

std::string stored_zip_bytes(const ZipMembers& members) {
  std::string out, directory;
  for (const auto& [name, content] : members) {
    if (content.size() >= 0xffffffffull || out.size() >= 0xffffffffull)
      throw std::length_error("over 4 GiB: zip files that large need ZIP64");
    const uint32_t crc = crc32_of(content.data(), content.size());
    const uint64_t local_offset = out.size();
    put_le(out, 0x04034b50, 4);
    put_member_fields(out, crc, content.size(), name.size());
    out += name;
    out += content;
    put_le(directory, 0x02014b50, 4);
    put_le(directory, 20, 2);  // made by: 2.0
    put_member_fields(directory, crc, content.size(), name.size());
    put_le(directory, 0, 2);  // comment
    put_le(directory, 0, 2);  // disk
    put_le(directory, 0, 2);  // internal attributes
    put_le(directory, 0, 4);  // external attributes
    put_le(directory, local_offset, 4);
    directory += name;
  }
  if (members.size() >= 0xffff || out.size() >= 0xffffffffull)
    throw std::length_error("too many members or bytes for a zip without ZIP64");
  const uint64_t directory_offset = out.size();
  out += directory;
  put_le(out, 0x06054b50, 4);
  put_le(out, 0, 2);
  put_le(out, 0, 2);
  put_le(out, members.size(), 2);
  put_le(out, members.size(), 2);
  put_le(out, directory.size(), 4);
  put_le(out, directory_offset, 4);
  put_le(out, 0, 2);  // comment
  return out;
}

}  // namespace trainer
