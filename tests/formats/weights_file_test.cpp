// safetensors and .npz as Python reads them: by the specification (the
// safetensors header parsed by hand) and with NumPy.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <fstream>

#include "test_paths.h"
#include "formats/weights_file.h"

using namespace trainer;

namespace {

template <typename T>
NamedArray array_of(const std::string& name, const std::string& dtype, std::vector<int64_t> shape,
                    const std::vector<T>& values) {
  NamedArray array{name, dtype, std::move(shape), std::string(values.size() * sizeof(T), '\0')};
  std::memcpy(array.bytes.data(), values.data(), array.bytes.size());
  return array;
}

std::vector<NamedArray> known_arrays() {
  return {array_of<float>("layer.0.weight", "F32", {2, 3}, {0.5f, -1.25f, 3.0f, 1e-7f, -0.0f, 65504.0f}),
          array_of<float>("layer.0.bias", "F32", {3}, {1.0f, 2.0f, 3.0f}),
          array_of<int64_t>("bn.num_batches_tracked", "I64", {}, {42}),
          array_of<double>("odd name/with.dots", "F64", {1, 1, 1}, {0.1})};
}

const char* kExpected =
    "layer.0.weight <f4 [2, 3] 0.5,-1.25,3.0,1.0000000116860974e-07,-0.0,65504.0\n"
    "layer.0.bias <f4 [3] 1.0,2.0,3.0\n"
    "bn.num_batches_tracked <i8 [] 42\n"
    "odd name/with.dots <f8 [1, 1, 1] 0.1\n";

std::string python_reads(const std::string& kind, const std::string& path) {
  const auto out = testing::system_python_output(testing::source_dir() + "/tests/formats/read_weights.py " + kind + " " + path);
  REQUIRE(out.has_value());
  return *out;
}

}  // namespace

TEST_CASE("safetensors and npz files read back in Python as written", "[export]") {
  if (!testing::system_python_has("numpy")) {
    WARN("SKIPPED: /usr/bin/python3 cannot import numpy (python3-numpy)");
    return;
  }
  const std::string dir = testing::fresh_dir("weights-file");
  std::ofstream(dir + "/w.safetensors", std::ios::binary)
      << safetensors_bytes(known_arrays(), {{"format", "pt"}, {"note", "a \"quoted\" text"}});
  std::ofstream(dir + "/w.npz", std::ios::binary) << npz_bytes(known_arrays());
  CHECK(python_reads("safetensors", dir + "/w.safetensors") ==
        std::string("metadata format 2\nmetadata note 15\n") + kExpected);
  CHECK(python_reads("npz", dir + "/w.npz") == kExpected);
  CHECK(safetensors_bytes(known_arrays(), {}) == safetensors_bytes(known_arrays(), {}));  // no clock, no randomness

  SECTION("bfloat16 has no NumPy dtype and is refused by the npz writer") {
    CHECK_THROWS_AS(npz_bytes({array_of<uint16_t>("x", "BF16", {1}, {0x3f80})}), std::invalid_argument);
  }
}

TEST_CASE("safetensors and npz read back as written, and damaged files are refused naming them", "[export][formats]") {
  const std::vector<NamedArray> arrays = known_arrays();
  const auto same = [&](const std::vector<NamedArray>& got) {
    REQUIRE(got.size() == arrays.size());
    for (const NamedArray& expected : arrays) {
      INFO(expected.name);
      const auto it = std::find_if(got.begin(), got.end(), [&](const NamedArray& a) { return a.name == expected.name; });
      REQUIRE(it != got.end());
      CHECK(it->dtype == expected.dtype);
      CHECK(it->shape == expected.shape);
      CHECK(it->bytes == expected.bytes);
    }
  };
  const std::string safetensors = safetensors_bytes(arrays, {{"format", "pt"}});
  same(read_safetensors(safetensors, "w.safetensors"));
  same(read_npz(npz_bytes(arrays), "w.npz"));
  // Damage: a header length past the end, a tensor's bytes past the data, no file at all.
  std::string long_header = safetensors;
  long_header[7] = '\x7f';
  CHECK_THROWS_WITH(read_safetensors(long_header, "w.safetensors"), Catch::Contains("w.safetensors: the header length"));
  CHECK_THROWS_WITH(read_safetensors(safetensors.substr(0, safetensors.size() - 3), "w.safetensors"),
                    Catch::Contains("outside the file's data"));
  CHECK_THROWS_WITH(read_safetensors("abc", "w.safetensors"), Catch::Contains("too short"));
  CHECK_THROWS_WITH(read_safetensors(std::string("\x02\0\0\0\0\0\0\0[]", 10), "w.safetensors"),
                    Catch::Contains("not a JSON object"));
}
