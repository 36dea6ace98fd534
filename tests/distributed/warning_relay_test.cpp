// The ranks' warnings under the supervisor: what every rank logged alike is
// printed once (by the node's first rank), what only others logged is
// printed for them after a wait, merged across ranks.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "distributed/rank_messages.h"
#include "distributed/warning_relay.h"
#include "util/logging.h"

using namespace trainer;
using Clock = WarningMerger::Clock;

namespace {

RelayedWarning warning(const std::string& text, const std::string& level = "warning") {
  return {"12:22:02", level, text};
}

}  // namespace

TEST_CASE("the ranks' warnings: once for all that logged them alike, others after a wait", "[dist][supervisor]") {
  const Clock::time_point t0 = Clock::now();
  const auto at = [&](double seconds) {
    return t0 + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  };
  WarningMerger merger(0, std::chrono::seconds(3));

  SECTION("a text rank 0 logged too is never printed for the others, whichever came first") {
    merger.add(1, warning("skipping a.png"), at(0));
    merger.add(0, warning("skipping a.png"), at(1));
    merger.add(0, warning("skipping b.png"), at(1));
    merger.add(2, warning("skipping b.png"), at(2));
    CHECK(merger.take_due(at(10)).empty());
    CHECK(merger.take_due(at(10), /*everything=*/true).empty());
  }
  SECTION("one only others logged waits, then prints once, naming every rank that logged it") {
    merger.add(2, warning("rank's disk is slow"), at(0));
    merger.add(1, warning("rank's disk is slow"), at(1));
    CHECK(merger.take_due(at(2.9)).empty());
    CHECK(merger.take_due(at(3)) == "[12:22:02 warning] [ranks 1, 2] rank's disk is slow\n");
    CHECK(merger.take_due(at(10), true).empty());
  }
  SECTION("rank 0's single copy answers one copy of each other rank, not two") {
    merger.add(0, warning("data wait 40%"), at(0));
    merger.add(1, warning("data wait 40%"), at(0));
    merger.add(1, warning("data wait 40%"), at(5));
    CHECK(merger.take_due(at(6)).empty());
    CHECK(merger.take_due(at(8)) == "[12:22:02 warning] [rank 1] data wait 40%\n");
  }
  SECTION("the same text at another level is another line; what is left prints when the ranks end") {
    merger.add(1, warning("peer gone", "error"), at(0));
    merger.add(2, warning("peer gone"), at(0));
    CHECK(merger.take_due(at(1), true) ==
          "[12:22:02 error] [rank 1] peer gone\n[12:22:02 warning] [rank 2] peer gone\n");
  }
}

TEST_CASE("a relay file's lines are read whole, as the ranks append them", "[dist][supervisor]") {
  RelayedWarning read;
  CHECK(parse_relayed_warning(R"({"time":"12:00:00","level":"warning","text":"a \"b\""})", read));
  CHECK(read.text == "a \"b\"");
  CHECK_FALSE(parse_relayed_warning(R"({"time":"12:00:00","level":"warning"})", read));
  CHECK_FALSE(parse_relayed_warning("not json", read));

  const RankMessageFiles files;
  const std::string zero = files.warnings_path_for(0), one = files.warnings_path_for(1);
  REQUIRE_FALSE(one.empty());
  WarningRelay relay({{0, zero}, {1, one}}, 0, std::chrono::seconds(3),
                     [](const std::string& level) { return level != "warning"; });
  const Clock::time_point now = Clock::now();
  CHECK(relay.poll(now).empty());  // no rank has written yet
  {
    std::ofstream(one) << R"({"time":"12:00:01","level":"error","text":"only one"})" "\n"
                       << R"({"time":"12:00:01","level":"warning","text":"below --log-level"})" "\n"
                       << R"({"time":"12:00:02","level":"error","text":"half)";
  }
  CHECK(relay.poll(now).empty());  // held
  const std::string left = relay.finish(now);
  // The unfinished line is not a warning yet; the level the console hides is left out.
  CHECK(left == "[12:00:01 error] [rank 1] only one\n");
}
