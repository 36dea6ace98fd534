// safetensors and .npz as Python reads them: by the specification (the
// safetensors header parsed by hand) and with NumPy.
#include <catch2/catch.hpp>

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
