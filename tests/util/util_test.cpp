#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli_runner.h"
#include "test_paths.h"
#include "util/atomic_file.h"
#include "util/error.h"
#include "util/text.h"

using namespace trainer;

TEST_CASE("edit distance and nearest word", "[util]") {
  CHECK(edit_distance("lr", "lr") == 0);
  CHECK(edit_distance("lrr", "lr") == 1);
  CHECK(edit_distance("kitten", "sitting") == 3);
  CHECK(nearest_word("lrr", {"lr", "momentum", "name"}) == "lr");
  CHECK(nearest_word("bach_size", {"batch_size", "epochs"}) == "batch_size");
  SECTION("nothing close gives no suggestion") { CHECK(nearest_word("zzzzzz", {"lr", "name"}).empty()); }
}

TEST_CASE("format_float9 is printf %.9g of a float", "[util]") {
  CHECK(format_float9(1.96735072f) == "1.96735072");
  CHECK(format_float9(0.5f) == "0.5");
  CHECK(format_float9(0.1f) == "0.100000001");
  CHECK(format_float9(1e-10f) == "1.00000001e-10");
}

TEST_CASE("large counts print to three significant digits with an SI prefix", "[util]") {
  CHECK(format_count_si(0) == "0");
  CHECK(format_count_si(950) == "950");
  CHECK(format_count_si(29300) == "29.3 K");
  CHECK(format_count_si(1'670'000) == "1.67 M");
  CHECK(format_count_si(999'600) == "1.00 M");  // not "1000 K"
  CHECK(format_count_si(9'996) == "10.0 K");
  CHECK(format_count_si(49.6e9) == "49.6 G");
  CHECK(format_count_si(397e9) == "397 G");
}

TEST_CASE("atomic writes replace whole files and leave nothing behind on failure", "[util]") {
  const std::string dir = testing::fresh_dir("atomic");
  const std::string path = dir + "/file.txt";
  write_file_atomic(path, "first");
  write_file_atomic(path, "second");
  std::ifstream in(path);
  std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(content == "second");

  SECTION("a failing writer keeps the old file and removes its temporary") {
    CHECK_THROWS_AS(write_atomic_with(path,
                                      [](const std::string& tmp) {
                                        std::ofstream(tmp) << "partial";
                                        throw IoError("disk full");
                                      }),
                    IoError);
    std::ifstream again(path);
    std::string kept((std::istreambuf_iterator<char>(again)), std::istreambuf_iterator<char>());
    CHECK(kept == "second");
    int files = 0;
    for (auto& entry : std::filesystem::directory_iterator(dir)) files += entry.is_regular_file();
    CHECK(files == 1);
  }
  SECTION("an unwritable target is an IoError naming it, its hint the folder to check") {
    CHECK_THROWS_WITH(write_file_atomic(dir + "/missing/sub/file", "x"), Catch::Contains(dir + "/missing/sub/file"));
    try {
      write_file_atomic(dir + "/missing/sub/file", "x");
      FAIL("a file was written under a missing folder");
    } catch (const IoError& e) {
      CHECK_THAT(e.hint(), Catch::Equals("check that " + dir + "/missing/sub exists and that this user may write there"));
    }
  }
}

TEST_CASE("stale temporary files of dead writers are removed, nothing else", "[util]") {
  namespace fs = std::filesystem;
  const std::string dir = testing::fresh_dir("stale-temp");
  const pid_t child = fork();
  if (child == 0) _exit(0);
  REQUIRE(child > 0);
  waitpid(child, nullptr, 0);  // gone now
  const std::string dead = dir + "/epoch-0003.pt.tmp." + std::to_string(child);
  const std::string live = dir + "/epoch-0004.pt.tmp." + std::to_string(getpid());
  const std::string other = dir + "/notes.tmp.draft";
  const std::string checkpoint = dir + "/epoch-0002.pt";
  for (const auto& path : {dead, live, other, checkpoint}) std::ofstream(path) << "x";
  CHECK(remove_stale_temp_files(dir) == std::vector<std::string>{dead});
  CHECK_FALSE(fs::exists(dead));
  CHECK(fs::exists(live));
  CHECK(fs::exists(other));
  CHECK(fs::exists(checkpoint));
  CHECK(remove_stale_temp_files(dir + "/missing").empty());
}

TEST_CASE("a failed append names the file and the free space, and leaves no half line", "[util]") {
  CHECK_THROWS_WITH(append_to_file("/dev/full", "{\"epoch\": 1}\n"),
                    Catch::Contains("cannot write /dev/full: No space left on device") &&
                        Catch::Contains("free on its file system"));
  try {
    append_to_file("/dev/full", "x\n");
    FAIL("an append to /dev/full succeeded");
  } catch (const IoError& e) {
    CHECK_THAT(e.hint(), Catch::StartsWith("free space on that file system, or write to another (a run: set log.dir"));
  }
  const std::string dir = testing::fresh_dir("append");
  append_to_file(dir + "/metrics.jsonl", "one\n");
  append_to_file(dir + "/metrics.jsonl", "two\n");
  std::ifstream in(dir + "/metrics.jsonl");
  std::stringstream text;
  text << in.rdbuf();
  CHECK(text.str() == "one\ntwo\n");
}

using testing::read_text;

namespace {

int regular_files_in(const std::string& dir) {
  int files = 0;
  for (auto& entry : std::filesystem::directory_iterator(dir)) files += entry.is_regular_file();
  return files;
}

}  // namespace

TEST_CASE("a second name for a file is a hard link, and outlives the first", "[util]") {
  namespace fs = std::filesystem;
  const std::string dir = testing::fresh_dir("atomic-link");
  const std::string epoch = dir + "/epoch-0002.pt", best = dir + "/best.pt";
  write_file_atomic(best, "epoch 1's bytes");
  write_file_atomic(epoch, "epoch 2's bytes");
  link_or_copy_atomic(epoch, best);
  CHECK(fs::equivalent(epoch, best));  // one file, no bytes copied
  CHECK(read_text(best) == "epoch 2's bytes");
  fs::remove(epoch);  // pruning the epoch's name
  CHECK(read_text(best) == "epoch 2's bytes");
  CHECK(regular_files_in(dir) == 1);  // no temporary left

  SECTION("naming a file again by the name it has leaves no temporary") {
    write_file_atomic(epoch, "epoch 3's bytes");
    link_or_copy_atomic(epoch, best);
    link_or_copy_atomic(epoch, best);  // rename(2) of two links to one file does nothing
    CHECK(regular_files_in(dir) == 2);
    CHECK(read_text(best) == "epoch 3's bytes");
  }
  SECTION("a missing source is an IoError naming both files") {
    CHECK_THROWS_WITH(link_or_copy_atomic(dir + "/epoch-0009.pt", best),
                      Catch::Contains(dir + "/epoch-0009.pt") && Catch::Contains(best));
    CHECK(read_text(best) == "epoch 2's bytes");
  }
}

TEST_CASE("a second name on another file system is a copy", "[util]") {
  namespace fs = std::filesystem;
  const std::string dir = testing::fresh_dir("atomic-copy");
  const std::string shm = "/dev/shm/trainer-link-test." + std::to_string(getpid());
  std::error_code error;
  fs::create_directories(shm, error);
  struct stat here {}, there {};
  if (error || ::stat(dir.c_str(), &here) != 0 || ::stat(shm.c_str(), &there) != 0 || here.st_dev == there.st_dev) {
    fs::remove_all(shm, error);
    WARN("SKIPPED: needs /dev/shm on a file system other than the tests' folder");
    return;
  }
  write_file_atomic(shm + "/epoch-0001.pt", "bytes");
  link_or_copy_atomic(shm + "/epoch-0001.pt", dir + "/best.pt");  // link(2) says EXDEV
  CHECK(read_text(dir + "/best.pt") == "bytes");
  CHECK_FALSE(fs::equivalent(shm + "/epoch-0001.pt", dir + "/best.pt"));
  fs::remove_all(shm);
  CHECK(read_text(dir + "/best.pt") == "bytes");
}

TEST_CASE("a dead writer's temporary that links to a kept file is set aside, not emptied", "[util]") {
  // A writer killed between linking its temporary and renaming it, whose
  // PID a later trainer process got: writing through that name would
  // truncate the file it links to.
  namespace fs = std::filesystem;
  const std::string dir = testing::fresh_dir("atomic-stale-link");
  const std::string kept = dir + "/epoch-0003.pt", target = dir + "/best.pt";
  write_file_atomic(kept, "epoch 3's bytes");
  const std::string stale = target + ".tmp." + std::to_string(getpid());
  fs::create_hard_link(kept, stale);
  SECTION("written") { write_file_atomic(target, "new"); }
  SECTION("linked") {
    write_file_atomic(dir + "/epoch-0004.pt", "new");
    link_or_copy_atomic(dir + "/epoch-0004.pt", target);
  }
  CHECK(read_text(target) == "new");
  CHECK(read_text(kept) == "epoch 3's bytes");
  CHECK_FALSE(fs::exists(stale));
}
