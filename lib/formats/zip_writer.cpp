#include "formats/zip_writer.h"

#include <cstdint>
#include <stdexcept>
#include <utility>

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

void ZipWriter::add(const std::string& name, const std::string& content) {
  if (content.size() >= 0xffffffffull || out_.size() >= 0xffffffffull || members_ + 1 >= 0xffff)
    throw std::length_error("too many members or bytes for a zip without ZIP64");
  const uint32_t crc = crc32_of(content.data(), content.size());
  const uint64_t local_offset = out_.size();
  put_le(out_, 0x04034b50, 4);
  put_member_fields(out_, crc, content.size(), name.size());
  out_ += name;
  out_ += content;
  put_le(directory_, 0x02014b50, 4);
  put_le(directory_, 20, 2);  // made by: 2.0
  put_member_fields(directory_, crc, content.size(), name.size());
  put_le(directory_, 0, 2);  // comment
  put_le(directory_, 0, 2);  // disk
  put_le(directory_, 0, 2);  // internal attributes
  put_le(directory_, 0, 4);  // external attributes
  put_le(directory_, local_offset, 4);
  directory_ += name;
  ++members_;
}

std::string ZipWriter::finish() {
  if (out_.size() >= 0xffffffffull) throw std::length_error("too many members or bytes for a zip without ZIP64");
  const uint64_t directory_offset = out_.size();
  std::string out = std::move(out_);
  out += directory_;
  put_le(out, 0x06054b50, 4);
  put_le(out, 0, 2);
  put_le(out, 0, 2);
  put_le(out, members_, 2);
  put_le(out, members_, 2);
  put_le(out, directory_.size(), 4);
  put_le(out, directory_offset, 4);
  put_le(out, 0, 2);  // comment
  out_.clear();
  directory_.clear();
  members_ = 0;
  return out;
}

}  // namespace trainer
