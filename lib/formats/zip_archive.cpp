#include "formats/zip_archive.h"

#include <zlib.h>

#include <algorithm>
#include <cstdint>

#include "util/error.h"

namespace trainer {
namespace {

constexpr uint32_t kEndOfDirectory = 0x06054b50;
constexpr uint32_t kZip64EndOfDirectory = 0x06064b50;
constexpr uint32_t kDirectoryEntry = 0x02014b50;
constexpr uint32_t kLocalHeader = 0x04034b50;
constexpr uint32_t kSaturated = 0xffffffff;

class Reader {
 public:
  Reader(const std::string& bytes, const std::string& name) : bytes_(bytes), name_(name) {}

  uint64_t le(size_t at, int width) const {
    need(at, static_cast<size_t>(width));
    uint64_t value = 0;
    for (int i = width - 1; i >= 0; --i) value = (value << 8) | static_cast<unsigned char>(bytes_[at + i]);
    return value;
  }
  void need(size_t at, size_t count) const {
    if (at > bytes_.size() || count > bytes_.size() - at) fail("truncated (a record runs past the end of the file)");
  }
  [[noreturn]] void fail(const std::string& what) const {
    throw DataError(name_ + ": not a readable zip archive: " + what, "re-create or re-download the file");
  }
  const std::string& bytes() const { return bytes_; }

 private:
  const std::string& bytes_;
  const std::string& name_;
};

// Deflate cannot shrink data more than about 1032 to 1: a member declaring
// more is lying, and its size must not be allocated.
constexpr uint64_t kMaxDeflateRatio = 1032;

void apply_zip64_extra(const Reader& in, size_t extra, size_t extra_length, ZipMember& entry, uint64_t& offset) {
  for (size_t at = extra; at + 4 <= extra + extra_length;) {
    const auto id = in.le(at, 2), size = in.le(at + 2, 2);
    if (id == 0x0001) {
      size_t field = at + 4;
      // Only the saturated fields are present, in this order.
      for (uint64_t* value : {&entry.uncompressed, &entry.compressed, &offset}) {
        if (*value != kSaturated) continue;
        *value = in.le(field, 8);
        field += 8;
      }
      return;
    }
    at += 4 + size;
  }
}

// Inflates `member` chunk by chunk, never past its declared size.
std::string inflate_member(const Reader& in, const ZipMember& member) {
  z_stream stream{};
  if (inflateInit2(&stream, -MAX_WBITS) != Z_OK) in.fail("zlib failed to start");
  std::string out;
  char buffer[1 << 16];
  size_t fed = 0;
  int status = Z_OK;
  while (status == Z_OK && out.size() <= member.uncompressed) {
    if (stream.avail_in == 0 && fed < member.compressed) {
      const size_t chunk = std::min<uint64_t>(member.compressed - fed, 1u << 30);
      stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.bytes().data() + member.data_offset + fed));
      stream.avail_in = static_cast<uInt>(chunk);
      fed += chunk;
    }
    stream.next_out = reinterpret_cast<Bytef*>(buffer);
    stream.avail_out = sizeof buffer;
    status = inflate(&stream, Z_NO_FLUSH);
    out.append(buffer, sizeof buffer - stream.avail_out);
    if (status == Z_BUF_ERROR && stream.avail_in == 0 && fed == member.compressed) break;
    if (status == Z_BUF_ERROR) status = Z_OK;
  }
  inflateEnd(&stream);
  if (status != Z_STREAM_END || out.size() != member.uncompressed)
    in.fail("member " + member.name + " does not inflate to its recorded size of " +
            std::to_string(member.uncompressed) + " bytes");
  return out;
}

}  // namespace

ZipEnd find_zip_end(const std::string& bytes, const std::string& name) {
  const Reader in(bytes, name);
  if (bytes.size() < 22) in.fail("too short to be a zip archive");
  // The end-of-directory record sits in the last 64 KiB + 22 bytes.
  const size_t lowest = bytes.size() > 65557 ? bytes.size() - 65557 : 0;
  for (size_t at = bytes.size() - 22 + 1; at-- > lowest;) {
    if (in.le(at, 4) != kEndOfDirectory) continue;
    const size_t comment_length = in.le(at + 20, 2);
    in.need(at + 22, comment_length);
    return ZipEnd{at, bytes.substr(at + 22, comment_length)};
  }
  in.fail("no end-of-directory record (truncated?)");
}

ZipDirectory read_zip_directory(const std::string& bytes, const std::string& name) {
  const Reader in(bytes, name);
  const ZipEnd zip_end = find_zip_end(bytes, name);
  const size_t end = zip_end.offset;
  ZipDirectory directory;
  directory.end_of_directory = end;
  directory.comment = zip_end.comment;
  uint64_t entries = in.le(end + 10, 2);
  uint64_t at = in.le(end + 16, 4);
  if ((entries == 0xffff || at == kSaturated) && end >= 20 && in.le(end - 20, 4) == 0x07064b50) {
    const uint64_t zip64_end = in.le(end - 20 + 8, 8);
    if (in.le(zip64_end, 4) != kZip64EndOfDirectory) in.fail("bad zip64 end-of-directory record");
    entries = in.le(zip64_end + 32, 8);
    at = in.le(zip64_end + 48, 8);
  }
  // Each directory entry takes at least 46 bytes: a count the file cannot
  // hold is not believed (nor reserved).
  if (entries > bytes.size() / 46) in.fail("the directory declares " + std::to_string(entries) + " members");

  for (uint64_t i = 0; i < entries; ++i) {
    if (in.le(at, 4) != kDirectoryEntry) in.fail("bad central directory entry");
    ZipMember entry;
    entry.method = static_cast<uint16_t>(in.le(at + 10, 2));
    entry.crc32 = static_cast<uint32_t>(in.le(at + 16, 4));
    entry.compressed = in.le(at + 20, 4);
    entry.uncompressed = in.le(at + 24, 4);
    const size_t name_length = in.le(at + 28, 2), extra_length = in.le(at + 30, 2), comment = in.le(at + 32, 2);
    uint64_t offset = in.le(at + 42, 4);
    in.need(at + 46, name_length);
    entry.name = bytes.substr(at + 46, name_length);
    apply_zip64_extra(in, at + 46 + name_length, extra_length, entry, offset);
    at += 46 + name_length + extra_length + comment;

    if (in.le(offset, 4) != kLocalHeader) in.fail("bad local header of " + entry.name);
    entry.data_offset = offset + 30 + in.le(offset + 26, 2) + in.le(offset + 28, 2);
    in.need(entry.data_offset, entry.compressed);
    if (entry.method == 0 && entry.compressed != entry.uncompressed)
      in.fail("stored member " + entry.name + " has inconsistent sizes");
    if (entry.method == 8 && entry.uncompressed / kMaxDeflateRatio > entry.compressed)
      in.fail("member " + entry.name + " declares " + std::to_string(entry.uncompressed) + " bytes, more than its " +
              std::to_string(entry.compressed) + " compressed bytes can hold");
    if (entry.method != 0 && entry.method != 8)
      in.fail("member " + entry.name + " uses compression method " + std::to_string(entry.method) +
              " (only stored and deflate are supported)");
    directory.members.push_back(std::move(entry));
  }
  return directory;
}

std::string zip_member_content(const std::string& bytes, const ZipMember& member, const std::string& name) {
  const Reader in(bytes, name);
  if (member.method == 0) return bytes.substr(member.data_offset, member.compressed);
  return inflate_member(in, member);
}

uint32_t zip_member_crc32(const std::string& bytes, const ZipMember& member, const std::string& name) {
  if (member.method == 0) return crc32_of(bytes.data() + member.data_offset, member.compressed);
  const std::string content = zip_member_content(bytes, member, name);
  return crc32_of(content.data(), content.size());
}

uint32_t crc32_of(const char* data, uint64_t size) {
  uLong crc = crc32(0L, Z_NULL, 0);
  for (uint64_t done = 0; done < size;) {  // zlib takes a uInt length
    const uInt chunk = static_cast<uInt>(std::min<uint64_t>(size - done, 1u << 30));
    crc = crc32(crc, reinterpret_cast<const Bytef*>(data + done), chunk);
    done += chunk;
  }
  return static_cast<uint32_t>(crc);
}

std::map<std::string, std::string> read_zip_members(const std::string& bytes, const std::string& name) {
  std::map<std::string, std::string> members;
  for (const ZipMember& member : read_zip_directory(bytes, name).members)
    members[member.name] = zip_member_content(bytes, member, name);
  return members;
}

}  // namespace trainer
