#include <catch2/catch.hpp>
#include <zlib.h>

#include <fstream>
#include <sstream>

#include "formats/file_bytes.h"
#include "formats/npy_format.h"
#include "formats/python_pickle.h"
#include "data/reuters_npz.h"
#include "formats/zip_archive.h"
#include "test_paths.h"
#include "util/error.h"

using namespace trainer;

namespace {

std::string numpy_files() { return testing::numpy_written_files(); }

std::vector<std::vector<int64_t>> expected_lists(std::vector<int64_t>& labels) {
  std::ifstream in(numpy_files() + "/edge.txt");
  std::vector<std::vector<int64_t>> rows;
  for (std::string line; std::getline(in, line);) {
    std::istringstream values(line);
    rows.emplace_back();
    for (int64_t v; values >> v;) rows.back().push_back(v);
  }
  labels = rows.back();
  rows.pop_back();
  return rows;
}

}  // namespace

TEST_CASE("npz files written by numpy: pickled lists, stored and deflated", "[data][npz][python]") {
  if (numpy_files().empty()) {
    WARN("SKIPPED: needs Debian's python3-numpy");
    return;
  }
  std::vector<int64_t> labels;
  const auto lists = expected_lists(labels);
  for (const char* file : {"edge.npz", "edge_compressed.npz"}) {
    INFO(file);
    const RawReuters raw = read_reuters_npz(numpy_files() + "/" + file);
    CHECK(raw.sequences == lists);
    CHECK(raw.labels == labels);
  }
  SECTION("the edge values are read as stored, and refused as Reuters data") {
    const RawReuters raw = read_reuters_npz(numpy_files() + "/edge.npz");
    CHECK_THROWS_WITH(check_reuters_ranges(raw, "edge.npz"),
                      Catch::Contains("edge.npz:x.npy: word id -5 (sequence 2, position 1) is not a word index"));
    RawReuters big = raw;
    big.sequences[2] = {70000, 1099511627776};
    CHECK_THROWS_WITH(check_reuters_ranges(big, "edge.npz"), Catch::Contains("word id 1099511627776 (sequence 2, "
                                                                             "position 1)"));
    big.sequences[2] = {70000};
    CHECK_NOTHROW(check_reuters_ranges(big, "edge.npz"));
    big.labels[4] = -1;
    CHECK_THROWS_WITH(check_reuters_ranges(big, "edge.npz"),
                      Catch::Contains("edge.npz:y.npy: label -1 at index 4 is not a topic number"));
  }
  SECTION("a plain integer matrix and unsigned labels") {
    const RawReuters raw = read_reuters_npz(numpy_files() + "/matrix.npz");
    REQUIRE(raw.sequences.size() == 3);
    CHECK(raw.sequences[2] == std::vector<int64_t>{8, 9, 10, 11});
    CHECK(raw.labels == std::vector<int64_t>{1, 2, 255});
  }
}

TEST_CASE("truncated or corrupt npz files are data errors at every cut", "[data][npz][python]") {
  if (numpy_files().empty()) {
    WARN("SKIPPED: needs Debian's python3-numpy");
    return;
  }
  for (const char* file : {"edge.npz", "edge_compressed.npz"}) {
    const std::string whole = read_file_bytes(numpy_files() + "/" + file);
    const std::string cut_path = numpy_files() + "/cut.npz";
    for (size_t length = 0; length < whole.size(); length += 13) {
      std::ofstream(cut_path, std::ios::binary | std::ios::trunc) << whole.substr(0, length);
      INFO(file << " cut to " << length << " of " << whole.size() << " bytes");
      CHECK_THROWS_AS(read_reuters_npz(cut_path), DataError);
    }
    // Flipping bytes anywhere gives a data error or (for bytes that carry no
    // structure) a successful read: never a crash or another exception.
    for (size_t at = 0; at < whole.size(); at += 7) {
      std::string damaged = whole;
      damaged[at] = static_cast<char>(damaged[at] ^ 0xa5);
      std::ofstream(cut_path, std::ios::binary | std::ios::trunc) << damaged;
      try {
        read_reuters_npz(cut_path);
      } catch (const DataError&) {
      }
    }
  }
}

TEST_CASE("the pickle reader runs no code", "[data][npz]") {
  // protocol 2: GLOBAL os.system, as a malicious file would start.
  const std::string evil("\x80\x02" "cos\nsystem\n" "q\x00.", 16);
  CHECK_THROWS_WITH(unpickle_int_list_array(evil, "evil.npy"), Catch::Contains("'os.system'"));
  CHECK_THROWS_WITH(unpickle_int_list_array("\x80\x02K\x05.", "five.npy"), Catch::Contains("found another object"));
  CHECK_THROWS_AS(unpickle_int_list_array("", "empty.npy"), DataError);
}

TEST_CASE("npy headers and integer dtypes", "[data][npz]") {
  std::string header = "{'descr': '<i2', 'fortran_order': False, 'shape': (3,), }";
  header += std::string(128 - 10 - header.size() - 1, ' ') + "\n";  // numpy pads to 64 bytes
  std::string npy = std::string("\x93NUMPY\x01\x00", 8) + static_cast<char>(header.size()) + '\0' + header;
  npy += std::string("\x01\x00\xff\xff\x00\x80", 6);
  const NpyArray array = parse_npy(npy, "a.npy");
  CHECK(array.shape == std::vector<int64_t>{3});
  CHECK(npy_to_int64(array, "a.npy") == std::vector<int64_t>{1, -1, -32768});
  CHECK_THROWS_WITH(npy_to_int64(parse_npy(npy.substr(0, npy.size() - 1), "b.npy"), "b.npy"), Catch::Contains("truncated"));
  CHECK_THROWS_WITH(parse_npy("PK\x03\x04 not npy", "c.npy"), Catch::Contains("not a .npy"));
  CHECK_THROWS_WITH(read_zip_members("definitely not a zip archive", "d.npz"), Catch::Contains("d.npz"));
}

TEST_CASE("hostile pickles of deeply nested lists are data errors, not stack overflows", "[data][npz]") {
  constexpr int kLevels = 1000000;
  SECTION("nested as they are built: the depth bound stops it") {
    // EMPTY_LIST a million times, then APPEND each into the one below.
    const std::string pickle = "\x80\x02" + std::string(kLevels, ']') + std::string(kLevels - 1, 'a') + ".";
    CHECK_THROWS_WITH(unpickle_int_list_array(pickle, "deep.npy"), Catch::Contains("nested deeper than"));
  }
  SECTION("nested through the memo, past the depth bound: freed without recursion") {
    // Each list is appended into the previous one after that one was
    // placed, so no append sees the true depth; the million-deep chain must
    // still be freed without recursing.
    std::string pickle = "\x80\x02]\x94";
    for (uint32_t i = 0; i < kLevels; ++i) {
      pickle += 'j';
      for (int b = 0; b < 4; ++b) pickle += static_cast<char>((i >> (8 * b)) & 0xff);
      pickle += "]\x94" "a";
    }
    pickle += '.';
    CHECK_THROWS_WITH(unpickle_int_list_array(pickle, "chain.npy"), Catch::Contains("found another object"));
  }
}

TEST_CASE("npy shapes that overflow or exceed the data are data errors", "[data][npz]") {
  const auto npy_with_shape = [](const std::string& shape, const std::string& data) {
    std::string header = "{'descr': '<i8', 'fortran_order': False, 'shape': (" + shape + "), }";
    header += std::string(256 - 10 - header.size() - 1, ' ') + "\n";
    return std::string("\x93NUMPY\x01\x00", 8) + static_cast<char>(header.size() & 0xff) +
           static_cast<char>(header.size() >> 8) + header + data;
  };
  // 2^62 x 4 elements wrap to 0 in 64 bits; no data follows the header.
  CHECK_THROWS_WITH(parse_npy(npy_with_shape("4611686018427387904, 4", ""), "x.npy"),
                    Catch::Contains("x.npy") && Catch::Contains("more elements than 64 bits"));
  CHECK_THROWS_WITH(parse_npy(npy_with_shape("99999999999999999999, 1", ""), "x.npy"),
                    Catch::Contains("dimension 99999999999999999999 is too large"));
  // Fits 64 bits, but the file holds 16 bytes, not 2^40 x 8.
  const NpyArray big = parse_npy(npy_with_shape("1099511627776,", std::string(16, '\0')), "big.npy");
  CHECK_THROWS_WITH(npy_to_int64(big, "big.npy"), Catch::Contains("holds 16 bytes") && Catch::Contains("truncated"));
  const NpyArray two = parse_npy(npy_with_shape("2,", std::string(16, '\1')), "two.npy");
  CHECK(npy_to_int64(two, "two.npy").size() == 2);
}

namespace {

void put_le(std::string& out, uint64_t value, int width) {
  for (int i = 0; i < width; ++i) out += static_cast<char>((value >> (8 * i)) & 0xff);
}

// A one-member zip archive whose member declares `declared` uncompressed
// bytes: the directory says what the attacker wants, the data is `deflated`.
std::string zip_declaring(const std::string& deflated, uint32_t crc, uint32_t declared) {
  const std::string name = "x.npy";
  std::string zip;
  put_le(zip, 0x04034b50, 4);
  put_le(zip, 20, 2), put_le(zip, 0, 2), put_le(zip, 8, 2), put_le(zip, 0, 4);
  put_le(zip, crc, 4), put_le(zip, deflated.size(), 4), put_le(zip, declared, 4);
  put_le(zip, name.size(), 2), put_le(zip, 0, 2);
  zip += name + deflated;
  const size_t directory = zip.size();
  put_le(zip, 0x02014b50, 4);
  put_le(zip, 20, 2), put_le(zip, 20, 2), put_le(zip, 0, 2), put_le(zip, 8, 2), put_le(zip, 0, 4);
  put_le(zip, crc, 4), put_le(zip, deflated.size(), 4), put_le(zip, declared, 4);
  put_le(zip, name.size(), 2), put_le(zip, 0, 2), put_le(zip, 0, 2), put_le(zip, 0, 2), put_le(zip, 0, 2);
  put_le(zip, 0, 4), put_le(zip, 0, 4);
  zip += name;
  const size_t directory_size = zip.size() - directory;
  put_le(zip, 0x06054b50, 4);
  put_le(zip, 0, 2), put_le(zip, 0, 2), put_le(zip, 1, 2), put_le(zip, 1, 2);
  put_le(zip, directory_size, 4), put_le(zip, directory, 4), put_le(zip, 0, 2);
  return zip;
}

std::string raw_deflate(const std::string& data) {
  z_stream stream{};
  deflateInit2(&stream, Z_BEST_COMPRESSION, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&stream, data.size()), '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  stream.avail_in = static_cast<uInt>(data.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  deflate(&stream, Z_FINISH);
  out.resize(stream.total_out);
  deflateEnd(&stream);
  return out;
}

}  // namespace

TEST_CASE("zip members are believed only as far as their bytes go", "[data][npz]") {
  const std::string content(100000, 'a');
  const std::string deflated = raw_deflate(content);
  const uint32_t crc = static_cast<uint32_t>(crc32(0, reinterpret_cast<const Bytef*>(content.data()), 100000));
  CHECK(read_zip_members(zip_declaring(deflated, crc, 100000), "ok.npz").at("x.npy") == content);
  // An 800-byte archive declaring 4 GB: refused before anything is allocated.
  CHECK_THROWS_WITH(read_zip_members(zip_declaring(deflated, crc, 0xF0000000u), "bomb.npz"),
                    Catch::Contains("bomb.npz") && Catch::Contains("declares 4026531840 bytes, more than its"));
  // Within deflate's reach but not what the data inflates to.
  CHECK_THROWS_WITH(read_zip_members(zip_declaring(deflated, crc, 110000), "short.npz"),
                    Catch::Contains("does not inflate to its recorded size of 110000 bytes"));
  CHECK_THROWS_WITH(read_zip_members(zip_declaring(deflated, crc, 99999), "long.npz"),
                    Catch::Contains("does not inflate to its recorded size of 99999 bytes"));
  const std::string archive = zip_declaring(deflated, crc, 100000);
  const ZipDirectory directory = read_zip_directory(archive, "ok.npz");
  CHECK(zip_member_crc32(archive, directory.members.at(0), "ok.npz") == crc);
}
