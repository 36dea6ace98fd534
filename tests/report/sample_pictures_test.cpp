// The sample pictures of an image-to-image run: written to RUN_DIR/samples/
// by the run's observer, read back in order, and embedded in the report.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "report/html_report.h"
#include "report/sample_pictures.h"
#include "test_paths.h"
#include "util/base64.h"
#include "watch/sample_image_files.h"

using namespace trainer;
using namespace trainer::testing;
namespace fs = std::filesystem;

namespace {

NamedImage picture(const std::string& name, const std::string& bytes) {
  NamedImage image;
  image.name = name;
  image.image.png = bytes;
  return image;
}

std::string read_whole(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace

TEST_CASE("the run keeps the newest epoch's sample pictures, one file each, and the step they were made after",
          "[report][samples]") {
  const std::string run = fresh_dir("sample-files");
  SampleImageFiles files(run);
  files.on_images({picture("valid-0/input", "in-0"), picture("valid-0/output", "out-0 first")}, 10);
  files.on_images({picture("valid-0/input", "in-0"), picture("valid-0/output", std::string("out\0-0", 6))}, 20);
  CHECK(sample_file_name("valid-1/target") == "valid-1-target.png");
  CHECK(read_whole(run + "/samples/valid-0-input.png") == "in-0");
  CHECK(read_whole(run + "/samples/valid-0-output.png") == std::string("out\0-0", 6));
  CHECK(read_whole(run + "/samples/step") == "20\n");
  // Replaced whole: no temporary left beside them.
  size_t files_there = 0;
  for (const auto& entry : fs::directory_iterator(run + "/samples")) files_there += entry.is_regular_file();
  CHECK(files_there == 3);
}

TEST_CASE("a picture that cannot be written is warned about and does not stop the run", "[report][samples]") {
  const std::string root = fresh_dir("sample-files-blocked");
  std::ofstream(root + "/run") << "a file where the run directory should be";
  SampleImageFiles files(root + "/run");
  CHECK_NOTHROW(files.on_images({picture("valid-0/input", "x")}, 1));
  CHECK_NOTHROW(files.on_images({picture("valid-0/input", "x")}, 2));
}

TEST_CASE("base64 is RFC 4648's, padding included", "[report][samples]") {
  CHECK(base64_encode("").empty());
  CHECK(base64_encode("f") == "Zg==");
  CHECK(base64_encode("fo") == "Zm8=");
  CHECK(base64_encode("foo") == "Zm9v");
  CHECK(base64_encode("foob") == "Zm9vYg==");
  CHECK(base64_encode("fooba") == "Zm9vYmE=");
  CHECK(base64_encode("foobar") == "Zm9vYmFy");
  CHECK(base64_encode(std::string("\xff\xfe\x00\x80", 4)) == "//4AgA==");
  CHECK(base64_encode("\x89PNG\r\n\x1a\n") == "iVBORw0KGgo=");
}

TEST_CASE("the report shows each sample's input, output and target in that order, embedded",
          "[report][samples]") {
  const std::string run = fresh_dir("sample-report");
  std::ofstream(run + "/metrics.jsonl") << "{\"epoch\":1,\"loss\":0.5,\"val_loss\":0.6}\n";
  SampleImageFiles(run).on_images({picture("valid-1/target", "t1"), picture("valid-0/output", "o0"),
                                   picture("valid-0/target", "t0"), picture("valid-0/input", "i0"),
                                   picture("valid-1/input", "i1")},
                                  42);
  std::ofstream(run + "/samples/notes.txt") << "not a picture";
  std::ofstream(run + "/samples/nameless.png") << "no role in the name";
  const SamplePictures samples = read_sample_pictures(run);
  CHECK(samples.step == 42);
  REQUIRE(samples.pictures.size() == 5);
  CHECK(samples.pictures[0].sample == "valid-0");
  CHECK(samples.pictures[0].role == "input");
  CHECK(samples.pictures[1].role == "output");
  CHECK(samples.pictures[2].role == "target");
  CHECK(samples.pictures[3].sample == "valid-1");
  CHECK(samples.pictures[3].role == "input");
  CHECK(samples.pictures[4].role == "target");

  const std::string output = run + "/report.html";
  write_report({run}, output);
  const std::string html = read_whole(output);
  CHECK_THAT(html, Catch::Contains("<h2>Samples</h2>") && Catch::Contains("after step 42"));
  CHECK_THAT(html, Catch::Contains("<tr><th></th><th>input</th><th>output</th><th>target</th></tr>"));
  const size_t input = html.find("alt=\"valid-0 input\" src=\"data:image/png;base64," + base64_encode("i0") + "\"");
  const size_t out = html.find("alt=\"valid-0 output\" src=\"data:image/png;base64," + base64_encode("o0") + "\"");
  const size_t target = html.find("alt=\"valid-0 target\" src=\"data:image/png;base64," + base64_encode("t0") + "\"");
  REQUIRE(input != std::string::npos);
  REQUIRE(out != std::string::npos);
  REQUIRE(target != std::string::npos);
  CHECK(input < out);
  CHECK(out < target);
  // valid-1 has no output: its row keeps the column, empty.
  CHECK_THAT(html, Catch::Contains("<tr><th>valid-1</th><td><img alt=\"valid-1 input\" src=\"data:image/png;base64," +
                                   base64_encode("i1") + "\"></td><td></td><td><img alt=\"valid-1 target\""));
  CHECK(html.find("nameless") == std::string::npos);

  // A run without pictures has no such section.
  const std::string plain = fresh_dir("sample-report-none");
  std::ofstream(plain + "/metrics.jsonl") << "{\"epoch\":1,\"loss\":0.5}\n";
  write_report({plain}, plain + "/report.html");
  CHECK(read_whole(plain + "/report.html").find("<h2>Samples</h2>") == std::string::npos);
}
