// Outputs never replace inputs, whatever the spelling of either.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "test_paths.h"
#include "util/error.h"
#include "util/input_guard.h"

using namespace trainer;
namespace fs = std::filesystem;

TEST_CASE("an output that names an input by any spelling is refused, naming both", "[util][outputs]") {
  const std::string dir = testing::fresh_dir("input-guard");
  fs::create_directories(dir + "/sub");
  std::ofstream(dir + "/a.pt") << "checkpoint";
  std::ofstream(dir + "/b.yaml") << "experiment";
  const std::vector<ReadFile> inputs = {{dir + "/a.pt", "the checkpoint"}, {dir + "/b.yaml", "the experiment file"}};

  CHECK(input_named_by(dir + "/a.pt", inputs) == &inputs[0]);
  CHECK(input_named_by(dir + "/sub/../b.yaml", inputs) == &inputs[1]);
  fs::create_hard_link(dir + "/a.pt", dir + "/hard.pt");
  CHECK(input_named_by(dir + "/hard.pt", inputs) == &inputs[0]);
  fs::create_directory_symlink(dir, dir + "/sub/up");
  CHECK(input_named_by(dir + "/sub/up/a.pt", inputs) == &inputs[0]);
  // A file that does not exist yet, or another file, names none.
  CHECK(input_named_by(dir + "/new.pt", inputs) == nullptr);
  std::ofstream(dir + "/other.pt") << "checkpoint";
  CHECK(input_named_by(dir + "/other.pt", inputs) == nullptr);
  CHECK(input_named_by(dir + "/a.pt", {{"", "nothing"}}) == nullptr);

  CHECK_NOTHROW(check_not_an_input("-o", dir + "/new.pt", inputs));
  CHECK_THROWS_AS(check_not_an_input("-o", dir + "/a.pt", inputs), UsageError);
  CHECK_THROWS_WITH(check_not_an_input("-o", dir + "/sub/../b.yaml", inputs),
                    Catch::Contains("-o " + dir + "/sub/../b.yaml is the experiment file (" + dir + "/b.yaml)") &&
                        Catch::Contains("would replace it"));
}
