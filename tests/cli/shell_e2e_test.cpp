// Shell comfort: a mistyped command names the word and the closest command,
// `trainer help`, and the completion scripts, run by bash, zsh and fish themselves.
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

  SECTION("a mistyped option is named with the command's closest, as any usage error is printed") {
    const auto option = run_trainer({"bench", "x.yaml", "--stpes", "3"}, dir);
    CHECK(option.exit_code == 2);
    CHECK_THAT(option.err, Catch::StartsWith("trainer: error: trainer bench has no option --stpes; did you mean "
                                             "--steps?\ntrainer: hint: trainer help bench lists the options"));
    const auto with_value = run_trainer({"run", "x.yaml", "--resum=runs/x"}, dir);
    CHECK_THAT(with_value.err, Catch::Contains("trainer run has no option --resum; did you mean --resume?"));
    const auto unlike = run_trainer({"eval", "--checkpoint", "x", "--zzzzzzzz"}, dir);
    CHECK(unlike.exit_code == 2);
    CHECK_THAT(unlike.err, Catch::Contains("trainer eval has no option --zzzzzzzz\n"));
    // CLI11's other refusals keep their words, in the same frame.
    const auto range = run_trainer({"bench", "x.yaml", "--steps", "0"}, dir);
    CHECK(range.exit_code == 2);
    CHECK_THAT(range.err, Catch::StartsWith("trainer: error: --steps: Value 0 not in range") &&
                              !Catch::Contains("Run with --help"));
    const auto missing = run_trainer({"export", "--checkpoint", "x"}, dir);
    CHECK(missing.exit_code == 2);
    CHECK_THAT(missing.err, Catch::Contains("trainer: error: --output is required\ntrainer: hint: trainer help export"));
    CHECK(run_trainer({"run", "--help"}, dir).exit_code == 0);
    // Before the command only trainer's own options stand; a mistyped one
    // is not passed over to take its value for the command.
    const auto before = run_trainer({"--log-levl", "debug", "run", "x.yaml"}, dir);
    CHECK(before.exit_code == 2);
    CHECK_THAT(before.err, Catch::Contains("trainer has no option --log-levl; did you mean --log-level?") &&
                               !Catch::Contains("unknown command"));
    CHECK(run_trainer({"--log-level=warn", "--quiet", "help"}, dir).exit_code == 0);
  }
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
  const auto tcsh = run_trainer({"completion", "tcsh"}, dir);
  CHECK(tcsh.exit_code == 2);
  CHECK_THAT(tcsh.err, Catch::Contains("bash, zsh and fish are supported"));
}

namespace {

// The shell's absolute path (the tests start programs without a PATH
// search), empty when it is not installed.
std::string shell_path(const std::string& shell) {
  for (const std::string folder : {"/usr/bin/", "/bin/", "/usr/local/bin/"})
    if (std::filesystem::exists(folder + shell)) return folder + shell;
  return {};
}

// What the zsh script offers for `words` (the last one being completed):
// zsh's completion builtins replaced by functions that print every
// candidate offered (zsh itself then keeps those matching the word).
std::string zsh_offers(const std::string& dir, const std::string& script, const std::vector<std::string>& words) {
  std::ostringstream test;
  test << "compdef() { :; }\n"
          "compadd() { local a; for a in \"$@\"; do [[ $a == -* ]] || print -r -- \"$a\"; done; }\n"
          "_describe() { local it; for it in \"${(@P)4}\"; do print -r -- \"${it%%:*}\"; done; }\n"
          "_files() { print -r -- \"FILES $*\"; }\n"
       << "source " << script << "\nwords=(";
  for (const auto& word : words) test << "'" << word << "' ";
  test << ")\nCURRENT=" << words.size() << "\n_trainer\n";
  std::ofstream(dir + "/complete.zsh") << test.str();
  const auto result = wait_trainer(spawn_process({shell_path("zsh"), "-f", dir + "/complete.zsh"}, dir), dir);
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  return result.out;
}

// What fish itself completes for `line`, one candidate a line (its
// description after a tab).
std::string fish_completes(const std::string& dir, const std::string& script, const std::string& line) {
  const auto result =
      wait_trainer(spawn_process({shell_path("fish"), "--no-config", "-c", "source " + script + "; complete -C '" + line + "'"}, dir),
                   dir);
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  return result.out;
}

}  // namespace

TEST_CASE("the zsh completion script offers commands, each command's options, levels, config keys and files",
          "[e2e][shell]") {
  if (shell_path("zsh").empty()) {
    WARN("SKIPPED: needs zsh");
    return;
  }
  const std::string dir = fresh_dir("shell-completion-zsh");
  const auto generated = run_trainer({"completion", "zsh"}, dir);
  REQUIRE(generated.exit_code == 0);
  CHECK(generated.out.rfind("#compdef trainer\n", 0) == 0);
  const std::string script = dir + "/_trainer";
  std::ofstream(script) << generated.out;
  // zsh parses it (-n: no execution).
  CHECK(wait_trainer(spawn_process({shell_path("zsh"), "-n", script}, dir), dir).exit_code == 0);
  const std::string all = zsh_offers(dir, script, {"trainer", ""});
  for (const auto& command : listed_commands(dir)) CHECK_THAT(all, Catch::Contains(command + "\n"));
  const std::string eval_options = zsh_offers(dir, script, {"trainer", "-q", "eval", "--"});
  CHECK_THAT(eval_options, Catch::Contains("--checkpoint\n") && Catch::Contains("--json\n") &&
                               !Catch::Contains("--resume\n"));
  CHECK_THAT(zsh_offers(dir, script, {"trainer", "sweep", "--"}), Catch::Contains("--prune\n"));
  CHECK(zsh_offers(dir, script, {"trainer", "--log-level", "w"}) == "trace\ndebug\ninfo\nwarn\nerror\noff\n");
  CHECK_THAT(zsh_offers(dir, script, {"trainer", "run", "--set", "train.e"}),
             Catch::Contains("train.early_stopping.patience\n") && Catch::Contains("optimizer.lr\n"));
  CHECK(zsh_offers(dir, script, {"trainer", "eval", "--checkpoint", ""}) == "FILES \n");
  CHECK(zsh_offers(dir, script, {"trainer", "run", "con"}) == "FILES -g *.(yaml|yml)\n");
}

TEST_CASE("the fish completion script completes commands, options, config keys and experiment files in fish",
          "[e2e][shell]") {
  if (shell_path("fish").empty()) {
    WARN("SKIPPED: needs fish");
    return;
  }
  const std::string dir = fresh_dir("shell-completion-fish");
  const auto generated = run_trainer({"completion", "fish"}, dir);
  REQUIRE(generated.exit_code == 0);
  const std::string script = dir + "/trainer.fish";
  std::ofstream(script) << generated.out;
  // fish sorts the candidates; each comes with its command's description.
  CHECK(fish_completes(dir, script, "trainer ru") ==
        "run\tTrain an experiment; epoch records go to stdout\n"
        "runs\tList the runs under a log folder, newest first: status, epochs, best validation value, time\n");
  CHECK_THAT(fish_completes(dir, script, "trainer -q run --set train.early_stopping.p"),
             Catch::StartsWith("train.early_stopping.patience=\t"));
  const std::string eval_options = fish_completes(dir, script, "trainer eval --");
  CHECK_THAT(eval_options, Catch::Contains("--checkpoint\t") && Catch::Contains("--json\t") &&
                               !Catch::Contains("--resume\t"));
  CHECK_THAT(fish_completes(dir, script, "trainer --log-level w"), Catch::StartsWith("warn\t"));
  CHECK(fish_completes(dir, script, "trainer help co") == "completion\nconfig\n");
  // Experiment files for a FILE argument, nothing after a command without one.
  const std::string files = dir + "/files";
  std::filesystem::create_directories(files + "/configs");
  std::ofstream(files + "/exp.yaml") << "x: 1\n";
  std::ofstream(files + "/notes.txt") << "x\n";
  CHECK(fish_completes(dir, script, "trainer run " + files + "/") ==
        files + "/configs/\n" + files + "/exp.yaml\n");
  CHECK(fish_completes(dir, script, "trainer devices " + files + "/").empty());
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
  CHECK(read_text(prefix + "/share/zsh/vendor-completions/_trainer") == run_trainer({"completion", "zsh"}, dir).out);
  CHECK(read_text(prefix + "/share/fish/vendor_completions.d/trainer.fish") ==
        run_trainer({"completion", "fish"}, dir).out);
}
