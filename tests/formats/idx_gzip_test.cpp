// The file formats the data sets are stored in: IDX (Fashion-MNIST) and
// gzip'd files.
#include <catch2/catch.hpp>
#include <zlib.h>

#include <fstream>

#include "formats/file_bytes.h"
#include "formats/idx_format.h"
#include "test_paths.h"
#include "util/error.h"

using namespace trainer;

namespace {

std::string idx_bytes(const std::vector<uint32_t>& dims, const std::string& values) {
  std::string out{'\0', '\0', '\x08', static_cast<char>(dims.size())};
  for (uint32_t d : dims)
    for (int shift : {24, 16, 8, 0}) out.push_back(static_cast<char>((d >> shift) & 0xff));
  return out + values;
}

void write_gzip(const std::string& path, const std::string& content) {
  gzFile file = gzopen(path.c_str(), "wb");
  gzwrite(file, content.data(), static_cast<unsigned>(content.size()));
  gzclose(file);
}

}  // namespace

TEST_CASE("IDX files parse and bad ones are refused with the reason", "[data][idx]") {
  const auto array = parse_idx(idx_bytes({2, 2, 3}, "abcdefghijkl"), "x.idx");
  CHECK(array.dims == std::vector<int64_t>{2, 2, 3});
  CHECK(array.values == "abcdefghijkl");
  CHECK_THROWS_WITH(parse_idx(idx_bytes({2, 3}, "abcde"), "x.idx"), Catch::Contains("x.idx") && Catch::Contains("truncated"));
  CHECK_THROWS_WITH(parse_idx("PK\x03\x04", "y.idx"), Catch::Contains("not an IDX file"));
  CHECK_THROWS_AS(parse_idx(std::string("\0\0\x0d\x01", 4), "z.idx"), DataError);
  CHECK_THROWS_WITH(parse_idx(std::string("\0\0\x08\x03\0\0", 6), "h.idx"), Catch::Contains("header is truncated"));
  CHECK(idx_file_size(idx_bytes({60000, 28, 28}, ""), "i.idx") == 16 + 60000 * 28 * 28);
  // Four sizes of 2^32 - 1: 2^128 values wrap a 64-bit product.
  CHECK_THROWS_WITH(parse_idx(idx_bytes({0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu}, ""), "o.idx"),
                    Catch::Contains("o.idx") && Catch::Contains("multiply to more than 2^63"));
}

TEST_CASE("gzip'd files are read whole and truncated or corrupt ones are data errors", "[data][gzip]") {
  const std::string dir = testing::fresh_dir("gzip");
  std::string content(100000, 'q');
  for (size_t i = 0; i < content.size(); ++i) content[i] = static_cast<char>('a' + (i * 7919) % 26);
  write_gzip(dir + "/ok.gz", content);
  CHECK(read_maybe_gzip(dir + "/ok.gz") == content);

  std::ofstream(dir + "/raw.bin", std::ios::binary) << "plain bytes";
  CHECK(read_maybe_gzip(dir + "/raw.bin") == "plain bytes");

  const std::string whole = read_file_bytes(dir + "/ok.gz");
  std::ofstream(dir + "/cut.gz", std::ios::binary) << whole.substr(0, whole.size() / 2);
  CHECK_THROWS_WITH(read_maybe_gzip(dir + "/cut.gz"), Catch::Contains("cut.gz") && Catch::Contains("truncated"));

  std::string corrupt = whole;
  for (size_t i = 20; i < 60; ++i) corrupt[i] = static_cast<char>(corrupt[i] ^ 0x5a);
  std::ofstream(dir + "/bad.gz", std::ios::binary) << corrupt;
  CHECK_THROWS_AS(read_maybe_gzip(dir + "/bad.gz"), DataError);

  CHECK_THROWS_WITH(read_maybe_gzip(dir + "/missing.gz"), Catch::Contains("missing.gz"));

  SECTION("a limit stops decompression there; a prefix reads just the start") {
    CHECK(read_maybe_gzip(dir + "/ok.gz", 100000) == content);
    CHECK_THROWS_WITH(read_maybe_gzip(dir + "/ok.gz", 99999, "as promised"),
                      Catch::Contains("ok.gz: decompresses to more than 99999 bytes, as promised"));
    CHECK(read_maybe_gzip_prefix(dir + "/ok.gz", 10) == content.substr(0, 10));
    CHECK(read_maybe_gzip_prefix(dir + "/raw.bin", 5) == "plain");
    CHECK(read_maybe_gzip_prefix(dir + "/ok.gz", 1 << 20) == content);
  }
}
