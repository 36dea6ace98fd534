// The progress's switch (bar, plain lines, off) and the terminal width it fits its line to. The
// line itself is tested in progress_line_test.cpp; the bar on a terminal in
// tests/cli/terminal_e2e_test.cpp.
#include <catch2/catch.hpp>

#include <cstdlib>

#include "watch/progress.h"

using namespace trainer;

TEST_CASE("progress is plain lines for pipes and files, the bar where asked, and off when quiet", "[watch][progress]") {
  // The tests' stderr is a pipe or a file, never a terminal.
  CHECK(ProgressBar(ProgressMode::kAuto, false).plain_lines());
  CHECK(ProgressBar(ProgressMode::kAlways, false).enabled());
  CHECK_FALSE(ProgressBar(ProgressMode::kAlways, false).plain_lines());
  CHECK(ProgressBar(ProgressMode::kLines, false).plain_lines());
  CHECK_FALSE(ProgressBar(ProgressMode::kAlways, true).enabled());
  CHECK_FALSE(ProgressBar(ProgressMode::kAuto, true).enabled());
  CHECK_FALSE(ProgressBar(ProgressMode::kNever, false).enabled());
  // A disabled bar draws nothing and asks for no values (which may sync a device).
  ProgressBar bar(ProgressMode::kNever, false);
  bar.start(1, 3, 10);
  bool asked = false;
  bar.update(10, 320, [&] {
    asked = true;
    return std::vector<std::pair<std::string, double>>{};
  });
  bar.finish();
  CHECK_FALSE(asked);
}

TEST_CASE("without a terminal the width is COLUMNS, else 80", "[watch][progress]") {
  const char* saved = std::getenv("COLUMNS");
  const std::string before = saved ? saved : "";
  ::setenv("COLUMNS", "132", 1);
  CHECK(terminal_width() == 132);
  ::setenv("COLUMNS", "not a number", 1);
  CHECK(terminal_width() == 80);
  ::unsetenv("COLUMNS");
  CHECK(terminal_width() == 80);
  if (saved) ::setenv("COLUMNS", before.c_str(), 1);
}
