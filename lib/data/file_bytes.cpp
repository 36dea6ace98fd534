#include "data/file_bytes.h"

#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "util/error.h"

namespace trainer {

std::string read_file_bytes(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw DataError("cannot read " + path + ": " + std::strerror(errno));
  std::ostringstream content;
  content << file.rdbuf();
  return content.str();
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

std::string read_maybe_gzip_prefix(const std::string& path, uint64_t count) {
  std::string raw = read_file_bytes(path);
  if (!is_gzip(raw)) return raw.substr(0, count);
  std::string out = gunzip(raw, path, count).first;
  return out.substr(0, count);
}

}  // namespace trainer
