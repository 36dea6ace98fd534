// The ranks' last messages: sent to the supervisor's file, and merged so that
// a text every rank wrote is printed once.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>

#include "distributed/rank_messages.h"

using namespace trainer;

namespace {

const std::string kConfigError = "trainer: config error: train.batch_size: 32 leaves rank 0 a batch of 1 sample\n";
const std::string kPeerGone = "trainer: error: rank 2 stopped (its heartbeat ended)\ntrainer: hint: see its worklog\n";

}  // namespace

TEST_CASE("the ranks' messages: a text all wrote once, others named by rank", "[dist][supervisor]") {
  SECTION("every rank found the same config error: printed once, as one process prints it") {
    CHECK(merged_rank_messages({{1, kConfigError}, {0, kConfigError}, {2, kConfigError}}) == kConfigError);
  }
  SECTION("a text only some ranks wrote names them; rank 0's stays unmarked") {
    const std::string cause = "trainer: error: cannot open /data/x.png\n";
    CHECK(merged_rank_messages({{2, cause}, {0, kPeerGone}, {1, kPeerGone}, {3, ""}}) ==
          "trainer [rank 2]: error: cannot open /data/x.png\n" + kPeerGone);
    CHECK(merged_rank_messages({{1, kPeerGone}, {3, kPeerGone}}) ==
          "trainer [ranks 1, 3]: error: rank 2 stopped (its heartbeat ended)\n"
          "trainer [ranks 1, 3]: hint: see its worklog\n");
  }
  SECTION("nothing written, nothing printed; a text without a final newline gets one") {
    CHECK(merged_rank_messages({{0, ""}, {1, ""}}).empty());
    CHECK(merged_rank_messages({{0, "trainer: stopped"}}) == "trainer: stopped\n");
  }
  SECTION("only lines starting 'trainer:' are relabelled") {
    CHECK(relabel_lines("trainer: error: a\n  detail\ntrainerx: b\n", "trainer [rank 1]") ==
          "trainer [rank 1]: error: a\n  detail\ntrainerx: b\n");
  }
}

TEST_CASE("a rank's message goes to the file its supervisor named, or is the caller's to print", "[dist][supervisor]") {
  const char* before = std::getenv(kRankMessageVariable);
  REQUIRE(before == nullptr);
  CHECK_FALSE(send_message_to_supervisor(kConfigError));
  std::string folder;
  {
    const RankMessageFiles files;
    const std::string path = files.path_for(1);
    REQUIRE_FALSE(path.empty());
    folder = std::filesystem::path(path).parent_path().string();
    CHECK(files.read(1).empty());
    ::setenv(kRankMessageVariable, path.c_str(), 1);
    CHECK(send_message_to_supervisor(kConfigError));
    CHECK(files.read(1) == kConfigError);
    // A file that cannot be written leaves the message to the caller.
    ::setenv(kRankMessageVariable, (folder + "/missing/message.1").c_str(), 1);
    CHECK_FALSE(send_message_to_supervisor(kConfigError));
    ::unsetenv(kRankMessageVariable);
  }
  CHECK_FALSE(std::filesystem::exists(folder));
}
