#include <catch2/catch.hpp>

#include <fcntl.h>

#include <filesystem>
#include <fstream>

#include "cli_runner.h"
#include "data/download.h"
#include "formats/file_bytes.h"
#include "loopback_http_server.h"
#include "test_paths.h"
#include "util/error.h"

using namespace trainer;
namespace fs = std::filesystem;

namespace {

std::string served_dir() { return testing::numpy_written_files(); }

}  // namespace

TEST_CASE("SHA-256 of a file", "[data][download]") {
  const std::string dir = testing::fresh_dir("sha");
  std::ofstream(dir + "/abc") << "abc";
  CHECK(sha256_of_file(dir + "/abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST_CASE("downloads from a real HTTP server on loopback, verified", "[data][download][python]") {
  if (served_dir().empty()) {
    WARN("SKIPPED: needs Debian's python3 and python3-numpy");
    return;
  }
  testing::LoopbackHttpServer server(served_dir());
  REQUIRE(server.ready());
  const std::string cache = testing::fresh_dir("download-cache");
  const std::string source = served_dir() + "/tiny_reuters.npz";
  const std::string hash = sha256_of_file(source);

  SECTION("a good download takes its place") {
    download_verified({server.url("tiny_reuters.npz"), hash, cache + "/sub/reuters.npz"});
    CHECK(read_file_bytes(cache + "/sub/reuters.npz") == read_file_bytes(source));
  }
  SECTION("a checksum mismatch keeps nothing") {
    CHECK_THROWS_WITH(download_verified({server.url("tiny_reuters.npz"), std::string(64, '0'), cache + "/r.npz"}),
                      Catch::Contains("SHA-256") && Catch::Contains(hash));
    CHECK(fs::is_empty(cache));
  }
  SECTION("HTTP errors and unreachable servers say so") {
    CHECK_THROWS_WITH(download_verified({server.url("missing.npz"), "", cache + "/m.npz"}), Catch::Contains("404"));
    const int closed = testing::free_loopback_port();
    try {
      download_verified({"http://127.0.0.1:" + std::to_string(closed) + "/x.npz", "", cache + "/x.npz"});
      FAIL("a download from a closed port succeeded");
    } catch (const DataError& e) {
      CHECK_THAT(e.what(), Catch::Contains("failed") && Catch::Contains("connect", Catch::CaseSensitive::No));
      CHECK_THAT(e.hint(), Catch::Contains("put the file at " + cache + "/x.npz"));
    }
    CHECK(fs::is_empty(cache));
  }
}

// The lab's data folder would be found before the cache: these runs are a
// user's without one.
const std::string kNoDataRoot = "TRAINER_DATA_DIR=";

TEST_CASE("trainer run downloads reuters.npz into its cache when missing", "[e2e][download][python]") {
  if (served_dir().empty()) {
    WARN("SKIPPED: needs Debian's python3 and python3-numpy");
    return;
  }
  testing::LoopbackHttpServer server(served_dir());
  REQUIRE(server.ready());
  const std::string dir = testing::fresh_dir("e2e-download");
  const auto result = testing::run_trainer(
      {"run", testing::source_dir() + "/configs/reuters_conv1d.yaml", "--set", "train.epochs=2", "--set",
       "data.sequence_length=40", "--set", "data.cache_dir=" + dir + "/cache", "--set",
       "data.url=" + server.url("tiny_reuters.npz"), "--set",
       "data.sha256=" + sha256_of_file(served_dir() + "/tiny_reuters.npz"), "--set", "log.dir=" + dir + "/runs"},
      dir, {kNoDataRoot});
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  CHECK(fs::exists(dir + "/cache/reuters.npz"));
  CHECK_THAT(result.out, Catch::Contains("Epoch=2,"));

  SECTION("offline: a data error that says where to put the file") {
    const auto offline = testing::run_trainer(
        {"run", testing::source_dir() + "/configs/reuters_conv1d.yaml", "--set",
         "data.cache_dir=" + dir + "/empty-cache", "--set",
         "data.url=http://127.0.0.1:" + std::to_string(testing::free_loopback_port()) + "/reuters.npz", "--set",
         "log.dir=" + dir + "/runs"},
        dir, {kNoDataRoot});
    CHECK(offline.exit_code == 3);
    CHECK_THAT(offline.err, Catch::Contains("put the file at " + dir + "/empty-cache/reuters.npz"));
  }
}

TEST_CASE("TRAINER_DATA_DIR is looked in before Keras's cache", "[e2e][data][python]") {
  if (served_dir().empty()) {
    WARN("SKIPPED: needs Debian's python3 and python3-numpy");
    return;
  }
  const std::string dir = testing::fresh_dir("data-root");
  const std::string root = dir + "/lab-data";
  fs::create_directories(root);
  fs::copy_file(served_dir() + "/tiny_reuters.npz", root + "/reuters.npz");
  const std::vector<std::string> args{"run",
                                      testing::source_dir() + "/configs/reuters_conv1d.yaml",
                                      "--set",
                                      "train.epochs=1",
                                      "--set",
                                      "data.sequence_length=40",
                                      "--set",
                                      "data.download=false",
                                      "--set",
                                      "data.cache_dir=" + dir + "/cache",
                                      "--set",
                                      "log.dir=" + dir + "/runs"};
  const auto found = testing::run_trainer(args, dir, {"TRAINER_DATA_DIR=" + root});
  INFO(found.err);
  CHECK(found.exit_code == 0);
  CHECK_THAT(found.err, Catch::Contains("reading " + root + "/reuters.npz"));
  CHECK_FALSE(fs::exists(dir + "/cache"));

  SECTION("without it and without the cache: a data error naming every place looked in") {
    const auto missing = testing::run_trainer(args, dir, {kNoDataRoot});
    CHECK(missing.exit_code == 3);
    CHECK_THAT(missing.err, Catch::Contains(dir + "/cache/reuters.npz") && Catch::Contains("TRAINER_DATA_DIR"));
  }
}
