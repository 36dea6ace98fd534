#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "runs/run_dir.h"
#include "test_paths.h"
#include "util/error.h"

using namespace trainer;

TEST_CASE("run directories, checkpoint listing, pruning and resume points", "[train][rundir]") {
  const std::string root = testing::fresh_dir("rundirs");
  const RunDir first = create_run_dir(root, "exp", "fixed");
  const RunDir second = create_run_dir(root, "exp", "fixed");
  CHECK(first.path == root + "/exp/fixed");
  CHECK(second.path == root + "/exp/fixed-2");  // never reuses a run

  for (int epoch : {1, 2, 3, 10}) std::ofstream(first.checkpoint_for(epoch, 0)) << "x";
  std::ofstream(first.checkpoint_for(11, 5)) << "x";
  auto files = list_checkpoints(first);
  REQUIRE(files.size() == 5);
  CHECK_THAT(files.back(), Catch::EndsWith("epoch-0011-step-0000005.pt"));
  prune_checkpoints(first, 2);
  files = list_checkpoints(first);
  REQUIRE(files.size() == 2);
  CHECK_THAT(files[0], Catch::EndsWith("epoch-0010.pt"));

  CHECK(find_resume_point(first.path).checkpoints.front() == files.back());
  CHECK(find_resume_point(files[0]).run.path == first.path);
  CHECK_THROWS_AS(find_resume_point(second.path), UsageError);
  CHECK_THROWS_WITH(find_resume_point(root + "/nothing"), Catch::Contains("no such run directory"));

  SECTION("resuming drops metrics of epochs after the checkpoint") {
    // Any key order is a record; a line cut short by a full disk is not.
    std::ofstream(first.metrics()) << "{\"epoch\":1,\"loss\":1}\n{\"loss\":1,\"epoch\":2}\n{\"epoch\":2,\"lo\n"
                                      "{\"epoch\":3,\"loss\":1}\n";
    truncate_metrics(first, 2);
    std::ifstream in(first.metrics());
    std::stringstream kept;
    kept << in.rdbuf();
    CHECK(kept.str() == "{\"epoch\":1,\"loss\":1}\n{\"loss\":1,\"epoch\":2}\n");
  }
}

TEST_CASE("a log.dir that is a file is named as the key, with what to set", "[train][rundir]") {
  const std::string root = testing::fresh_dir("rundir-log-dir-file");
  std::ofstream(root + "/notes.txt") << "the user's notes";
  try {
    create_run_dir(root + "/notes.txt", "exp", "r");
    FAIL("a run directory was made under a file");
  } catch (const IoError& e) {
    CHECK_THAT(e.what(), Catch::Contains("cannot create " + root + "/notes.txt/exp") &&
                             Catch::Contains("(log.dir " + root + "/notes.txt exists and is not a folder)"));
    CHECK_THAT(e.hint(), Catch::Contains("set log.dir to a folder"));
  }
  std::ifstream in(root + "/notes.txt");
  CHECK(std::string(std::istreambuf_iterator<char>(in), {}) == "the user's notes");
}

TEST_CASE("a log.dir that cannot be made is named as the key, with what to set", "[train][rundir]") {
  // A folder under a file: no user, root included, can make it.
  const std::string root = testing::fresh_dir("rundir-log-dir-unmakeable");
  std::ofstream(root + "/notes.txt") << "the user's notes";
  const std::string log_dir = root + "/notes.txt/runs";
  try {
    create_run_dir(log_dir, "exp", "r");
    FAIL("a run directory was made under a file");
  } catch (const IoError& e) {
    CHECK_THAT(e.what(),
               Catch::Contains("cannot create " + log_dir + "/exp") && Catch::Contains("(under log.dir " + log_dir + ")"));
    CHECK_THAT(e.hint(), Catch::Contains("set log.dir to a folder this user can write"));
  }
}
