// Shell comfort: a mistyped command names the word and the closest command,
// `trainer help`, and the bash completion script, run by bash itself.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
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

// The commands `trainer help` lists, in its order.
std::vector<std::string> listed_commands(const std::string& dir) {
  const std::string help = run_trainer({"help"}, dir).out;
  std::istringstream lines(help.substr(help.find("Subcommands:")));
  std::vector<std::string> commands;
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string first;
    if (line.rfind("  ", 0) == 0 && (words >> first)) commands.push_back(first);
  }
  return commands;
}

}  // namespace

TEST_CASE("a mistyped command is named with the closest one", "[e2e][shell]") {
  const std::string dir = fresh_dir("shell-typo");
  const auto typo = run_trainer({"rnu", "x.yaml"}, dir);
  CHECK(typo.exit_code == 2);
  CHECK_THAT(typo.err, Catch::Contains("unknown command 'rnu'; did you mean 'run'?") &&
                           Catch::Contains("commands: run, sweep, eval"));
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
  const std::vector<std::string> commands = listed_commands(dir);
  CHECK(commands.size() >= 12);
  for (const auto& command : commands) CHECK_THAT(all, Catch::Contains(command + "\n"));
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

TEST_CASE("the man page documents every command, and cmake --install puts it beside trainer and its completion", "[e2e][shell]") {
  const std::string man_page = TRAINER_MAN_PAGE;
  if (man_page.empty()) {
    WARN("SKIPPED: help2man was not found when the build was configured, so there is no man page");
    return;
  }
  const std::string dir = fresh_dir("shell-man");
  const std::string page = read_text(man_page);
  const std::vector<std::string> commands = listed_commands(dir);
  CHECK(commands.size() >= 12);
  for (const auto& command : commands) CHECK_THAT(page, Catch::Contains(".SS \"trainer " + command + "\""));
  // Each command's own options, and the tables written for the page.
  CHECK_THAT(page, Catch::Contains("\\-\\-parallel") && Catch::Contains("\\-\\-checkpoint") &&
                       Catch::Contains(".SH \"EXIT STATUS\"") && Catch::Contains("TRAINER_DATA_DIR"));
  if (std::system("command -v man >/dev/null 2>&1") == 0) {
    // man renders it without a roff warning.
    const auto rendered = wait_trainer(
        spawn_process({"/bin/sh", "-c", "MANWIDTH=100 man --warnings -l " + man_page + " | col -b"}, dir), dir);
    CHECK(rendered.err.empty());
    CHECK_THAT(rendered.out, Catch::Contains("trainer sweep") && Catch::Contains("EXIT STATUS"));
  }

  const std::string prefix = dir + "/prefix";
  const auto installed = wait_trainer(
      spawn_process({TRAINER_CMAKE, "--install", TRAINER_BUILD_DIR, "--prefix", prefix}, dir), dir);
  INFO(installed.out + installed.err);
  REQUIRE(installed.exit_code == 0);
  CHECK(std::filesystem::exists(prefix + "/bin/trainer"));
  CHECK(read_text(prefix + "/share/man/man1/trainer.1") == page);
  CHECK(read_text(prefix + "/share/bash-completion/completions/trainer") ==
        run_trainer({"completion", "bash"}, dir).out);
}
