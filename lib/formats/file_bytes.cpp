#include "formats/file_bytes.h"

#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "util/error.h"
#include "util/read_file.h"

namespace trainer {

std::string read_file_bytes(const std::string& path) {
  FileRead read = read_regular_file(path);
  if (!read.ok()) throw DataError(path + " " + read.problem);
  return std::move(read.bytes);
}

namespace {

bool is_gzip(const std::string& raw) {
  return raw.size() >= 2 && static_cast<unsigned char>(raw[0]) == 0x1f && static_cast<unsigned char>(raw[1]) == 0x8b;
}

// Gunzips `raw` until its end or until more than `stop_after` bytes came
// out. Returns the bytes and whether the stream ended.
std::pair<std::string, bool> gunzip(const std::string& raw, const std::string& path, uint64_t stop_after) {
  z_stream stream{};
  // 16 + MAX_WBITS: expect a gzip header.
  if (inflateInit2(&stream, 16 + MAX_WBITS) != Z_OK) throw DataError("zlib failed to start for " + path);
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(raw.data()));
  stream.avail_in = static_cast<uInt>(raw.size());
  std::string out;
  char buffer[1 << 16];
  int status = Z_OK;
  while (status == Z_OK && out.size() <= stop_after) {
    stream.next_out = reinterpret_cast<Bytef*>(buffer);
    stream.avail_out = sizeof buffer;
    status = inflate(&stream, Z_NO_FLUSH);
    out.append(buffer, sizeof buffer - stream.avail_out);
    if (status == Z_BUF_ERROR && stream.avail_in == 0) break;
  }
  inflateEnd(&stream);
  const bool ended = status == Z_STREAM_END;
  if (!ended && out.size() <= stop_after) {
    throw DataError(path + ": gzip data is " + (status == Z_BUF_ERROR ? "truncated" : "corrupt") + " after " +
                        std::to_string(out.size()) + " decompressed bytes",
                    "re-install or re-download the file");
  }
  return {std::move(out), ended};
}

}  // namespace

std::string read_maybe_gzip(const std::string& path, uint64_t limit, const std::string& limit_reason) {
  const std::string raw = read_file_bytes(path);
  if (!is_gzip(raw)) return raw;
  auto [out, ended] = gunzip(raw, path, limit);
  if (out.size() > limit)
    throw DataError(path + ": decompresses to more than " + std::to_string(limit) + " bytes" +
                        (limit_reason.empty() ? std::string() : ", " + limit_reason),
                    "re-install or re-download the file");
  return std::move(out);
}

void check_content_size(const std::string& path, uint64_t expected, const std::string& described_by) {
  std::error_code error;
  const uint64_t size = std::filesystem::file_size(path, error);
  if (error) throw DataError(path + ": cannot tell its size (" + error.message() + ")");
  unsigned char head[2] = {}, tail[4] = {};
  std::ifstream file(path, std::ios::binary);
  file.read(reinterpret_cast<char*>(head), 2);
  const bool gzip = file.gcount() == 2 && head[0] == 0x1f && head[1] == 0x8b;
  if (!gzip) {
    if (size != expected)
      throw DataError(path + ": " + described_by + " describes " + std::to_string(expected) + " bytes but the file holds " +
                          std::to_string(size) + (size < expected ? " (truncated, or a corrupt header)" : ""),
                      "re-install or re-download the file");
    return;
  }
  // ISIZE: the last four bytes, little-endian, the content's size mod 2^32.
  if (size >= 18) {
    file.seekg(static_cast<std::streamoff>(size - 4));
    file.read(reinterpret_cast<char*>(tail), 4);
  }
  const uint32_t isize = static_cast<uint32_t>(tail[0]) | static_cast<uint32_t>(tail[1]) << 8 |
                         static_cast<uint32_t>(tail[2]) << 16 | static_cast<uint32_t>(tail[3]) << 24;
  if (size < 18 || isize != static_cast<uint32_t>(expected))
    throw DataError(path + ": " + described_by + " describes " + std::to_string(expected) +
                        " bytes but the gzip data holds " + std::to_string(isize) +
                        (expected > 0xffffffffULL ? " (modulo 4 GiB)" : ""),
                    "re-install or re-download the file");
}

std::string read_maybe_gzip_prefix(const std::string& path, uint64_t count) {
  std::string raw = read_file_bytes(path);
  if (!is_gzip(raw)) return raw.substr(0, count);
  std::string out = gunzip(raw, path, count).first;
  return out.substr(0, count);
}

}  // namespace trainer
