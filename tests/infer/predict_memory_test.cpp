// What one image costs trainer predict, and the refusal of one past the
// budget before it is decoded.
#include <catch2/catch.hpp>

#include "infer/predict_memory.h"
#include "util/error.h"

using namespace trainer;

TEST_CASE("an image's memory: whole, or a band of tiles", "[train][predict][memory]") {
  const ImageShape huge{16000, 16000, 3};
  // 8-bit and float, 3 channels: 5 bytes a sample; twice for an image model.
  CHECK(predict_image_bytes(huge, false, {}) == int64_t{16000} * 16000 * 3 * 5);
  CHECK(predict_image_bytes(huge, true, {}) == int64_t{16000} * 16000 * 3 * 10);
  // Tiles of 512 with 32 of overlap: bands of 512 rows, 16064 columns wide
  // with context: under a twentieth of the whole.
  const TileOptions tiles{512, 32, 16};
  CHECK(predict_image_bytes(huge, true, tiles) == int64_t{16064} * 512 * 3 * 9 + int64_t{16000} * 512 * 3 * 5);
  CHECK(predict_image_bytes(huge, true, tiles) * 20 < predict_image_bytes(huge, true, {}));
  // An image shorter than a band is one band.
  CHECK(predict_image_bytes({100, 50, 1}, true, tiles) == int64_t{164} * 50 * 9 + int64_t{100} * 50 * 5);
}

TEST_CASE("an image past the budget is refused naming it, with the tile side that fits", "[train][predict][memory]") {
  const ImageShape huge{16000, 16000, 3};
  const int64_t gib = int64_t{1} << 30;
  CHECK(predict_memory_budget(0, std::nullopt) == std::nullopt);
  CHECK(predict_memory_budget(0, 5 * gib) == 5 * gib);
  CHECK(predict_memory_budget(gib, 5 * gib) == gib);
  CHECK(predict_memory_budget(8 * gib, 5 * gib) == 5 * gib);
  CHECK_NOTHROW(check_image_fits("big.png", huge, true, {}, std::nullopt, "unknown"));
  CHECK_NOTHROW(check_image_fits("big.png", huge, true, {512, 32, 16}, gib, "left of memory_limit"));
  try {
    check_image_fits("big.png", huge, true, {}, gib, "left of memory_limit");
    FAIL("a 16000 x 16000 image fit in 1 GiB");
  } catch (const OutOfMemoryError& e) {
    CHECK(std::string(e.what()) ==
          "big.png (16000 x 16000 pixels) needs 7324.2 MiB before the model's own memory, more than the 1024.0 MiB "
          "left of memory_limit");
    CHECK_THAT(e.hint(), Catch::Contains("--tile 1024"));
  }
  try {
    check_image_fits("photo.jpg", huge, false, {}, gib, "this host has available");
    FAIL("a classifier's 16000 x 16000 input fit in 1 GiB");
  } catch (const OutOfMemoryError& e) {
    CHECK_THAT(e.what(), Catch::Contains("3662.1 MiB") && Catch::Contains("this host has available"));
    CHECK_THAT(e.hint(), Catch::Contains("resize it first"));
  }
  CHECK_THROWS_WITH(check_image_fits("big.png", huge, true, {128, 8, 16}, 16 << 20, "left of memory_limit"),
                    Catch::Contains("for each band of tiles"));
}
