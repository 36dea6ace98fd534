// Test names that ctest's Catch2 discovery would split: it reads a ';' in a
// name as a list separator and registers two tests that each run nothing
// (failing CI with "No tests ran"); a name that starts with '-' reaches the
// test binary as an option it refuses. Every test source is checked here,
// so such a name fails one clear test instead.
#include <catch2/catch.hpp>

#include <filesystem>
#include <regex>

#include "cli_runner.h"

using namespace trainer::testing;
namespace fs = std::filesystem;

TEST_CASE("no test name holds a semicolon or starts with a dash", "[tests]") {
  const std::regex name(R"(TEST_CASE\(\s*"((?:[^"\\]|\\.)*)\")");
  int names = 0;
  for (const auto& entry : fs::recursive_directory_iterator(fs::path(source_dir()) / "tests")) {
    if (entry.path().extension() != ".cpp") continue;
    const std::string text = read_text(entry.path().string());
    for (std::sregex_iterator it(text.begin(), text.end(), name), end; it != end; ++it) {
      ++names;
      INFO(entry.path().string() << ": " << (*it)[1].str());
      CHECK((*it)[1].str().find(';') == std::string::npos);
      CHECK((*it)[1].str().rfind('-', 0) != 0);
    }
  }
  CHECK(names > 100);
}
