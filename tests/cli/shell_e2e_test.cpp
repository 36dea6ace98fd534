// Shell comfort: a mistyped command names the word and the closest command,
// `trainer help`, and the bash completion script, run by bash itself.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "cli_runner.h"

using namespace trainer::testing;

namespace {

// What `_trainer` offers for the command line `words` (the last one being
// completed), as bash's completion machinery would call it.
std::string completions(const std::string& dir, const std::string& script, const std::vector<std::string>& words) {
  std::ostringstream test;
  test << "source " << script << "\nCOMP_WORDS=(";
  for (const auto& word : words) test << "'" << word << "' ";
  test << ")\nCOMP_CWORD=" << words.size() - 1 << "\n_trainer\nprintf '%s\\n' \"${COMPREPLY[@]}\"\n";
  std::ofstream(dir + "/complete.sh") << test.str();
  const auto result = wait_trainer(spawn_process({"/bin/bash", dir + "/complete.sh"}, dir), dir);
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  return result.out;
}

}  // namespace

TEST_CASE("a mistyped command is named with the closest one", "[e2e][shell]") {
  const std::string dir = fresh_dir("shell-typo");
  const auto typo = run_trainer({"rnu", "x.yaml"}, dir);
  CHECK(typo.exit_code == 2);
  CHECK_THAT(typo.err, Catch::Contains("unknown command 'rnu'; did you mean 'run'?") &&
                           Catch::Contains("commands: run, eval"));
  const auto after_option = run_trainer({"--log-level", "debug", "evl"}, dir);
  CHECK(after_option.exit_code == 2);
  CHECK_THAT(after_option.err, Catch::Contains("did you mean 'eval'?"));
  const auto far = run_trainer({"xyzzy"}, dir);
  CHECK(far.exit_code == 2);
  CHECK_THAT(far.err, Catch::Contains("unknown command 'xyzzy'") && !Catch::Contains("did you mean"));

  SECTION("trainer help and trainer help COMMAND") {
    const auto all = run_trainer({"help"}, dir);
    CHECK(all.exit_code == 0);
    CHECK_THAT(all.out, Catch::Contains("Subcommands:") && Catch::Contains("completion"));
    const auto eval = run_trainer({"help", "eval"}, dir);
    CHECK(eval.exit_code == 0);
    CHECK_THAT(eval.out, Catch::Contains("--checkpoint") && Catch::Contains("--json"));
    const auto wrong = run_trainer({"help", "reprot"}, dir);
    CHECK(wrong.exit_code == 2);
    CHECK_THAT(wrong.err, Catch::Contains("did you mean 'report'?"));
  }
}

TEST_CASE("the bash completion script completes commands, options and config keys", "[e2e][shell]") {
  const std::string dir = fresh_dir("shell-completion");
  const auto generated = run_trainer({"completion", "bash"}, dir);
  REQUIRE(generated.exit_code == 0);
  const std::string script = dir + "/trainer.bash";
  std::ofstream(script) << generated.out;
  // Every command `trainer help` lists is offered for an empty word.
  const std::string all = completions(dir, script, {"trainer", ""});
  const std::string help = run_trainer({"help"}, dir).out;
  const std::string listed = help.substr(help.find("Subcommands:"));
  std::istringstream lines(listed);
  int commands = 0;
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string first;
    if (line.rfind("  ", 0) != 0 || !(words >> first)) continue;
    INFO(first);
    CHECK_THAT(all, Catch::Contains(first + "\n"));
    ++commands;
  }
  CHECK(commands >= 11);
  CHECK(completions(dir, script, {"trainer", "r"}) == "run\nruns\nreport\n");
  CHECK(completions(dir, script, {"trainer", "-q", "run", "--set", "train.early_stopping.p"}) ==
        "train.early_stopping.patience=\n");
  const std::string eval_options = completions(dir, script, {"trainer", "eval", "--"});
  CHECK_THAT(eval_options, Catch::Contains("--checkpoint\n") && Catch::Contains("--json\n") &&
                               !Catch::Contains("--resume\n"));
  CHECK(completions(dir, script, {"trainer", "--log-level", "w"}) == "warn\n");
  CHECK(completions(dir, script, {"trainer", "help", "co"}) == "config\ncompletion\n");
  const auto fish = run_trainer({"completion", "fish"}, dir);
  CHECK(fish.exit_code == 2);
  CHECK_THAT(fish.err, Catch::Contains("bash is supported"));
}
