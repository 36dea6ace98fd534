// Decoding PNG, JPEG and BMP: the pixels another decoder (Pillow) reads from
// the same files, hand-made BMPs of known pixels, and damaged files that must
// be data errors naming the file.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "images/image_codec.h"
#include "images/image_fixtures.h"
#include "test_paths.h"
#include "util/error.h"

using namespace trainer;

namespace {

// Pillow's pixels of NAME (write_images.py's NAME.pixels).
Image pillow_pixels(const std::string& path) {
  std::istringstream text(testing::bytes_of(path + ".pixels"));
  Image image;
  text >> image.height >> image.width >> image.channels;
  for (int value; text >> value;) image.pixels.push_back(static_cast<uint8_t>(value));
  return image;
}

// A BMP of `bits` per pixel with a 40-byte header (and `extra` between it and
// the pixels: a palette or bit-field masks), rows as given (bottom row first
// unless `top_down`), each padded to 4 bytes here.
std::string bmp(int width, int height, int bits, const std::string& extra, const std::vector<std::string>& rows,
                bool top_down = false, uint32_t compression = 0) {
  const auto le = [](uint32_t v, int n) {
    std::string s;
    for (int i = 0; i < n; ++i) s += static_cast<char>((v >> (8 * i)) & 0xff);
    return s;
  };
  std::string pixels;
  for (std::string row : rows) {
    while (row.size() % 4) row += '\0';
    pixels += row;
  }
  const uint32_t offset = 14 + 40 + static_cast<uint32_t>(extra.size());
  return "BM" + le(offset + static_cast<uint32_t>(pixels.size()), 4) + le(0, 4) + le(offset, 4) + le(40, 4) +
         le(static_cast<uint32_t>(width), 4) + le(static_cast<uint32_t>(top_down ? -height : height), 4) + le(1, 2) +
         le(static_cast<uint32_t>(bits), 2) + le(compression, 4) + le(static_cast<uint32_t>(pixels.size()), 4) +
         le(2835, 4) + le(2835, 4) + le(0, 4) + le(0, 4) + extra + pixels;
}

std::vector<int> pixels_of(const Image& image) { return {image.pixels.begin(), image.pixels.end()}; }

}  // namespace

TEST_CASE("PNG, JPEG and BMP files decode to the pixels Pillow reads", "[data][image][python]") {
  const std::optional<testing::PillowImages> written = testing::pillow_images("pillow-images");
  if (!written) return;
  const std::string& dir = written->dir;
  for (const std::string& path : written->images) {
    INFO(path);
    const Image expected = pillow_pixels(path);
    const Image decoded = decode_image(testing::bytes_of(path), path, expected.channels);
    CHECK(decoded.height == expected.height);
    CHECK(decoded.width == expected.width);
    CHECK(decoded.channels == expected.channels);
    CHECK(pixels_of(decoded) == pixels_of(expected));
  }
  SECTION("each file's own channels: grey PNG and JPEG stay grey, the rest is RGB") {
    CHECK(decode_image(testing::bytes_of(dir + "/grey.png"), "grey.png").channels == 1);
    CHECK(decode_image(testing::bytes_of(dir + "/grey_alpha.png"), "grey_alpha.png").channels == 1);
    CHECK(decode_image(testing::bytes_of(dir + "/grey.jpg"), "grey.jpg").channels == 1);
    CHECK(decode_image(testing::bytes_of(dir + "/rgba.png"), "rgba.png").channels == 3);
    CHECK(decode_image(testing::bytes_of(dir + "/palette.png"), "palette.png").channels == 3);
    CHECK(decode_image(testing::bytes_of(dir + "/grey.bmp"), "grey.bmp").channels == 3);
  }
}

TEST_CASE("BMPs of known pixels: 24 bits, palettes, bit fields, top-down rows", "[data][image]") {
  // 2 x 2: red, green on the top row; blue, white below. Rows are stored bottom first.
  const std::string bgr = bmp(2, 2, 24, "", {std::string("\xff\0\0\xff\xff\xff", 6), std::string("\0\0\xff\0\xff\0", 6)});
  const std::vector<int> expected{255, 0, 0, 0, 255, 0, 0, 0, 255, 255, 255, 255};
  CHECK(pixels_of(decode_image(bgr, "bgr.bmp")) == expected);
  const std::string top_down =
      bmp(2, 2, 24, "", {std::string("\0\0\xff\0\xff\0", 6), std::string("\xff\0\0\xff\xff\xff", 6)}, true);
  CHECK(pixels_of(decode_image(top_down, "top.bmp")) == expected);
  // 4 bits per pixel through a palette of four BGRX entries: indices 0 1 / 2 3.
  const std::string palette("\0\0\xff\0" "\0\xff\0\0" "\xff\0\0\0" "\xff\xff\xff\0", 16);
  const std::string four_bit = bmp(2, 2, 4, palette, {std::string("\x23", 1), std::string("\x01", 1)});
  std::string with_count = four_bit;
  with_count[46] = 4;  // colours used: 4
  CHECK(pixels_of(decode_image(with_count, "p4.bmp")) == expected);
  // 16 bits, 5-6-5 bit fields: 0xf800 red, 0x07e0 green, 0x001f blue, 0xffff white.
  const std::string masks("\0\xf8\0\0" "\xe0\x07\0\0" "\x1f\0\0\0", 12);
  const std::string rgb565 = bmp(2, 2, 16, masks, {std::string("\x1f\0\xff\xff", 4), std::string("\0\xf8\xe0\x07", 4)},
                                 false, 3);
  CHECK(pixels_of(decode_image(rgb565, "565.bmp")) == expected);
  // Grey from colour: Pillow's luma, 0.299 R + 0.587 G + 0.114 B, rounded.
  CHECK(pixels_of(decode_image(bgr, "bgr.bmp", 1)) == std::vector<int>{76, 150, 29, 255});
}

TEST_CASE("PNG and JPEG encoding: PNG is lossless, JPEG close", "[data][image]") {
  Image image{5, 9, 3, {}};
  for (int i = 0; i < 5 * 9 * 3; ++i) image.pixels.push_back(static_cast<uint8_t>(i * 37 % 256));
  const Image back = decode_image(encode_png(image, "x.png"), "x.png");
  CHECK(pixels_of(back) == pixels_of(image));
  Image flat{16, 16, 1, std::vector<uint8_t>(256, 90)};
  const Image jpeg = decode_image(encode_jpeg(flat, 90, "flat.jpg"), "flat.jpg");
  CHECK(jpeg.channels == 1);
  for (uint8_t v : jpeg.pixels) CHECK(std::abs(v - 90) <= 1);
}

TEST_CASE("damaged, cut or foreign image files are data errors naming the file", "[data][image][errors]") {
  Image image{12, 20, 3, {}};
  for (int i = 0; i < 12 * 20 * 3; ++i) image.pixels.push_back(static_cast<uint8_t>(i * 7 % 256));
  const std::string png = encode_png(image, "p"), jpeg = encode_jpeg(image, 90, "j");
  const std::string bmp24 = bmp(2, 1, 24, "", {std::string(6, '\x10')});
  SECTION("every cut of each format") {
    for (const auto& [name, bytes] : {std::pair{std::string("cut.png"), png}, std::pair{std::string("cut.jpg"), jpeg},
                                     std::pair{std::string("cut.bmp"), bmp24}}) {
      for (size_t length = 0; length < bytes.size(); length += std::max<size_t>(1, bytes.size() / 40)) {
        INFO(name << " cut to " << length << " of " << bytes.size() << " bytes");
        CHECK_THROWS_AS(decode_image(bytes.substr(0, length), name), DataError);
        CHECK_THROWS_WITH(decode_image(bytes.substr(0, length), name), Catch::StartsWith(name + ": "));
      }
    }
    CHECK_THROWS_WITH(decode_image(jpeg.substr(0, jpeg.size() - 40), "cut.jpg"),
                      Catch::Contains("cut.jpg: the JPEG is damaged or cut short"));
  }
  SECTION("bytes flipped inside: an error or an image, never a crash") {
    for (const std::string& bytes : {png, jpeg}) {
      for (size_t at = 20; at < bytes.size(); at += 13) {
        std::string damaged = bytes;
        damaged[at] = static_cast<char>(~damaged[at]);
        try {
          const Image decoded = decode_image(damaged, "flipped");
          CHECK(decoded.pixels.size() == static_cast<size_t>(decoded.height * decoded.width * decoded.channels));
        } catch (const DataError& e) {
          CHECK_THAT(e.what(), Catch::StartsWith("flipped: "));
        }
      }
    }
  }
  SECTION("other files, and headers that ask too much") {
    CHECK_THROWS_WITH(decode_image("", "empty.png"), "empty.png: not a PNG, JPEG or BMP image (the file is empty)");
    CHECK_THROWS_WITH(decode_image("GIF89a....", "a.gif"), Catch::Contains("a.gif: not a PNG, JPEG or BMP image"));
    std::string huge = bmp(2, 1, 24, "", {std::string(6, '\x10')});
    huge[18] = '\0', huge[19] = '\0', huge[20] = '\0', huge[21] = '\x40';  // width 2^30
    CHECK_THROWS_WITH(decode_image(huge, "huge.bmp"), Catch::Contains("huge.bmp: the image is 1073741824 x 1 pixels"));
    CHECK_THROWS_WITH(decode_image(bmp(2, 1, 24, "", {std::string(6, '\x10')}, false, 1), "rle.bmp"),
                      Catch::Contains("rle.bmp: not a valid BMP (compression 1 (RLE or embedded) is not read)"));
  }
  CHECK(has_image_extension("a/b.JPEG"));
  CHECK(has_image_extension("x.png"));
  CHECK_FALSE(has_image_extension("x.gif"));
  CHECK_FALSE(has_image_extension("png"));
}

TEST_CASE("a progressive JPEG whose header claims 65496 x 65293 pixels is refused before it is decoded", "[data][image][errors]") {
  // Found by the image fuzzer: libjpeg set aside gigabytes for the whole
  // image's coefficients before trainer's size check ran.
  const std::string bytes = testing::bytes_of(testing::source_dir() + "/tests/fuzz/regressions/image/progressive-65496x65293.jpg");
  REQUIRE(bytes.size() == 314);
  CHECK_THROWS_WITH(decode_image(bytes, "huge.jpg"),
                    Catch::Contains("huge.jpg: not a valid JPEG (65293 x 65496 pixels, more than trainer decodes"));
}
