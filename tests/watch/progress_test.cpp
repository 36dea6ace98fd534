// The progress bar's switch and the terminal width it fits its line to. The
// line itself is tested in progress_line_test.cpp; the bar on a terminal in
// tests/cli/terminal_e2e_test.cpp.
#include <catch2/catch.hpp>

#include <cstdlib>

#include "watch/progress.h"

using namespace trainer;

TEST_CASE("the progress bar is off for pipes unless asked, and always off when quiet", "[watch][progress]") {
  // The tests' stderr is a pipe or a file, never a terminal.
  CHECK_FALSE(ProgressBar(ProgressMode::kAuto, false).enabled());
  CHECK(ProgressBar(ProgressMode::kAlways, false).enabled());
  CHECK_FALSE(ProgressBar(ProgressMode::kAlways, true).enabled());
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
