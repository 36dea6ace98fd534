// Images read a band of rows at a time: the same pixels as decoding them
// whole, for every format and layout the decoders know, damage found in the
// band where it lies, and PNGs written a band at a time.
#include <catch2/catch.hpp>

#include <filesystem>

#include "images/image_codec.h"
#include "images/image_rows.h"
#include "images/png_row_writer.h"
#include "images/image_fixtures.h"
#include "test_paths.h"
#include "util/error.h"

using namespace trainer;

namespace {

// Every row of `bytes`, read `band` rows at a time and put back together.
Image in_bands(const std::string& bytes, const std::string& name, int64_t band, int64_t channels = 0) {
  ImageRowReader reader(bytes, name, channels);
  Image whole{0, reader.width(), reader.channels(), {}};
  while (reader.rows_read() < reader.height()) {
    const Image rows = reader.next_rows(band);
    REQUIRE(rows.height == std::min(band, reader.height() - whole.height));
    REQUIRE(rows.channels == reader.channels());
    whole.pixels.insert(whole.pixels.end(), rows.pixels.begin(), rows.pixels.end());
    whole.height += rows.height;
  }
  CHECK(reader.next_rows(band).height == 0);  // nothing past the last row
  return whole;
}

void check_same(const Image& a, const Image& b) {
  CHECK(a.height == b.height);
  CHECK(a.width == b.width);
  CHECK(a.channels == b.channels);
  CHECK(a.pixels == b.pixels);
}

}  // namespace

TEST_CASE("rows in bands are the pixels of the whole image: PNG, JPEG, BMP as trainer writes them", "[data][image]") {
  const Image colour = testing::random_image(37, 53, 3, 1), grey = testing::random_image(29, 17, 1, 2);
  const std::vector<std::pair<std::string, std::string>> files{
      {"colour.png", encode_png(colour, "colour.png")},
      {"grey.png", encode_png(grey, "grey.png")},
      {"colour.jpg", encode_jpeg(colour, 85, "colour.jpg")},
      {"grey.jpg", encode_jpeg(grey, 85, "grey.jpg")}};
  for (const auto& [name, bytes] : files) {
    for (int64_t channels : {0, 1, 3}) {
      const Image whole = decode_image(bytes, name, channels);
      for (int64_t band : {1, 4, 11, 100}) {
        INFO(name << ", channels " << channels << ", bands of " << band);
        check_same(in_bands(bytes, name, band, channels), whole);
      }
    }
    CHECK(ImageRowReader(bytes, name).streams());
  }
  // PNG is lossless: the rows are the pixels written.
  check_same(in_bands(files[0].second, "colour.png", 5), colour);
}

TEST_CASE("rows in bands are the pixels Pillow reads, and 16-bit PNGs are decoded whole first", "[data][image][python]") {
  const std::optional<testing::PillowImages> written = testing::pillow_images("pillow-image-rows");
  if (!written) return;
  for (const std::string& path : written->images) {
    const std::string bytes = testing::bytes_of(path);
    for (int64_t band : {1, 3}) {
      INFO(path << " in bands of " << band);
      check_same(in_bands(bytes, path, band), decode_image(bytes, path));
    }
    CHECK(ImageRowReader(bytes, path).streams());
  }
  const std::string grey16 = testing::bytes_of(written->dir + "/other/grey16.png");
  const ImageRowReader sixteen(grey16, "grey16.png");
  CHECK_FALSE(sixteen.streams());
  check_same(in_bands(grey16, "grey16.png", 2), decode_image(grey16, "grey16.png"));
}

TEST_CASE("damage late in a PNG is found in the band that reads it, naming the file", "[data][image][errors]") {
  // Noise does not compress: the rows span several IDAT chunks, and the
  // last one's data is damaged (its CRC no longer matches).
  const std::string png = encode_png(testing::random_image(64, 64, 3, 3), "p");
  std::string damaged = png;
  damaged[damaged.size() - 17] = static_cast<char>(~damaged[damaged.size() - 17]);
  ImageRowReader reader(damaged, "late.png");
  CHECK(reader.next_rows(1).height == 1);
  CHECK_THROWS_WITH(
      [&] {
        while (reader.rows_read() < reader.height()) reader.next_rows(8);
      }(),
      Catch::StartsWith("late.png: the PNG is damaged or cut short"));
  CHECK_THROWS_AS(decode_image(damaged, "late.png"), DataError);
  // A file cut short is refused when opened, before any row is used.
  CHECK_THROWS_WITH(ImageRowReader(png.substr(0, png.size() / 2), "cut.png"),
                    Catch::StartsWith("cut.png: the PNG is cut short"));
}

TEST_CASE("a PNG written a band of rows at a time holds the rows written", "[data][image]") {
  const std::string dir = testing::fresh_dir("png-row-writer");
  const Image image = testing::random_image(45, 31, 3, 4);
  const std::string path = dir + "/out.png";
  {
    PngRowWriter writer(path, path, image.width, image.height, image.channels);
    for (int64_t top = 0; top < image.height; top += 10) {
      const int64_t rows = std::min<int64_t>(10, image.height - top);
      const size_t row_bytes = static_cast<size_t>(image.width * image.channels);
      Image band{rows, image.width, image.channels, {}};
      band.pixels.assign(image.pixels.begin() + static_cast<std::ptrdiff_t>(static_cast<size_t>(top) * row_bytes),
                         image.pixels.begin() + static_cast<std::ptrdiff_t>(static_cast<size_t>(top + rows) * row_bytes));
      writer.write(band);
    }
    writer.finish();
  }
  check_same(decode_image(testing::bytes_of(path), path), image);
  SECTION("rows of another width, or too few, are refused") {
    PngRowWriter writer(dir + "/short.png", "short.png", 8, 4, 1);
    CHECK_THROWS(writer.write(Image{1, 9, 1, std::vector<uint8_t>(9)}));
    writer.write(Image{2, 8, 1, std::vector<uint8_t>(16)});
    CHECK_THROWS_WITH(writer.finish(), Catch::Contains("short.png: 2 of 4 rows written"));
  }
  SECTION("a full disk is an I/O error naming the file the user named") {
    if (!std::filesystem::exists("/dev/full")) {
      WARN("SKIPPED: no /dev/full here");
      return;
    }
    try {
      PngRowWriter writer("/dev/full", "restored/a.png", image.width, image.height, image.channels);
      writer.write(image);
      writer.finish();
      FAIL("writing to /dev/full succeeded");
    } catch (const IoError& e) {
      CHECK_THAT(e.what(), Catch::Contains("cannot write restored/a.png: No space left on device"));
    }
  }
}
