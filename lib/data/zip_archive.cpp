#include "data/zip_archive.h"

#include <zlib.h>

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
    throw DataError(name_ + ": not a readable .npz/zip archive: " + what, "re-create or re-download the file");
  }
  const std::string& bytes() const { return bytes_; }

 private:
  const std::string& bytes_;
  const std::string& name_;
};

// Sizes and offset of a member, zip64 fields filled in from its extra field.
struct Entry {
  std::string name;
  uint16_t method = 0;
  uint64_t compressed = 0, uncompressed = 0, offset = 0;
};

void apply_zip64_extra(const Reader& in, size_t extra, size_t extra_length, Entry& entry) {
  for (size_t at = extra; at + 4 <= extra + extra_length;) {
    const auto id = in.le(at, 2), size = in.le(at + 2, 2);
    if (id == 0x0001) {
      size_t field = at + 4;
      // Only the saturated fields are present, in this order.
      for (uint64_t* value : {&entry.uncompressed, &entry.compressed, &entry.offset}) {
        if (*value != kSaturated) continue;
        *value = in.le(field, 8);
        field += 8;
      }
      return;
    }
    at += 4 + size;
  }
}

std::string inflate_raw(const Reader& in, const std::string& data, uint64_t expected, const std::string& member) {
  std::string out(expected, '\0');
  z_stream stream{};
  if (inflateInit2(&stream, -MAX_WBITS) != Z_OK) in.fail("zlib failed to start");
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  stream.avail_in = static_cast<uInt>(data.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  const int status = inflate(&stream, Z_FINISH);
  const uint64_t produced = stream.total_out;
  inflateEnd(&stream);
  if (status != Z_STREAM_END || produced != expected) in.fail("member " + member + " does not inflate to its recorded size");
  return out;
}

}  // namespace

std::map<std::string, std::string> read_zip_members(const std::string& bytes, const std::string& name) {
  const Reader in(bytes, name);
  if (bytes.size() < 22) in.fail("too short to be a zip archive");
  // The end-of-directory record sits in the last 64 KiB + 22 bytes.
  size_t end = std::string::npos;
  const size_t lowest = bytes.size() > 65557 ? bytes.size() - 65557 : 0;
  for (size_t at = bytes.size() - 22 + 1; at-- > lowest;)
    if (in.le(at, 4) == kEndOfDirectory) {
      end = at;
      break;
    }
  if (end == std::string::npos) in.fail("no end-of-directory record (truncated?)");

  uint64_t entries = in.le(end + 10, 2);
  uint64_t directory = in.le(end + 16, 4);
  if ((entries == 0xffff || directory == kSaturated) && end >= 20 && in.le(end - 20, 4) == 0x07064b50) {
    const uint64_t zip64_end = in.le(end - 20 + 8, 8);
    if (in.le(zip64_end, 4) != kZip64EndOfDirectory) in.fail("bad zip64 end-of-directory record");
    entries = in.le(zip64_end + 32, 8);
    directory = in.le(zip64_end + 48, 8);
  }

  std::map<std::string, std::string> members;
  size_t at = directory;
  for (uint64_t i = 0; i < entries; ++i) {
    if (in.le(at, 4) != kDirectoryEntry) in.fail("bad central directory entry");
    Entry entry;
    entry.method = static_cast<uint16_t>(in.le(at + 10, 2));
    entry.compressed = in.le(at + 20, 4);
    entry.uncompressed = in.le(at + 24, 4);
    const size_t name_length = in.le(at + 28, 2), extra_length = in.le(at + 30, 2), comment = in.le(at + 32, 2);
    entry.offset = in.le(at + 42, 4);
    in.need(at + 46, name_length);
    entry.name = bytes.substr(at + 46, name_length);
    apply_zip64_extra(in, at + 46 + name_length, extra_length, entry);
    at += 46 + name_length + extra_length + comment;

    if (in.le(entry.offset, 4) != kLocalHeader) in.fail("bad local header of " + entry.name);
    const size_t data = entry.offset + 30 + in.le(entry.offset + 26, 2) + in.le(entry.offset + 28, 2);
    in.need(data, entry.compressed);
    const std::string raw = bytes.substr(data, entry.compressed);
    if (entry.method == 0) {
      if (entry.compressed != entry.uncompressed) in.fail("stored member " + entry.name + " has inconsistent sizes");
      members[entry.name] = raw;
    } else if (entry.method == 8) {
      members[entry.name] = inflate_raw(in, raw, entry.uncompressed, entry.name);
    } else {
      in.fail("member " + entry.name + " uses compression method " + std::to_string(entry.method) +
              " (only stored and deflate are supported)");
    }
  }
  return members;
}

}  // namespace trainer
