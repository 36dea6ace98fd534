// Commands that write a file the user names never write it over what they
// read or what a run keeps: export, report and tune refuse such an -o
// (exit 2) before writing anything, and the file is left as it was.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "cli_runner.h"
#include "experiment_files.h"

using namespace trainer::testing;
namespace fs = std::filesystem;

TEST_CASE("an output that is an input or a file a run keeps is refused, the file left as it was",
          "[e2e][outputs][export][report][tune]") {
  const std::string dir = fresh_dir("e2e-outputs-keep-inputs");
  const std::string experiment = write_mlp_experiment(dir, small_mlp("exp", "run", "train: {epochs: 1}\n"));
  REQUIRE(run_trainer({"run", experiment}, dir).exit_code == 0);
  const std::string run = dir + "/runs/exp/run";
  const std::string best = run + "/checkpoints/best.pt";
  REQUIRE(fs::exists(best));

  // Runs `args`, which must be refused with `expected` in the message, and
  // checks that `kept` is byte for byte what it was.
  const auto refused = [&](const std::vector<std::string>& args, const std::string& kept, const std::string& expected) {
    const std::string before = read_text(kept);
    const auto result = run_trainer(args, dir);
    INFO(args[0] << " -> " << kept << ": " << result.err);
    CHECK(result.exit_code == 2);
    CHECK_THAT(result.err, Catch::Contains(expected));
    CHECK(read_text(kept) == before);
  };

  SECTION("export: not over the checkpoint, the experiment file or the run's files") {
    fs::copy_file(best, dir + "/loose.pt");
    refused({"export", experiment, "--checkpoint", dir + "/loose.pt", "-o", dir + "/./loose.pt"}, dir + "/loose.pt",
            "is the checkpoint (" + dir + "/loose.pt), which this command reads");
    refused({"export", "--checkpoint", run, "-o", best}, best, "a file in the checkpoints folder of the run");
    refused({"export", "--checkpoint", run, "-o", run + "/config.yaml"}, run + "/config.yaml",
            "names the config.yaml of the run " + run);
    // The config beside OUT (OUT's stem + .config.yaml) is checked as OUT is.
    fs::copy_file(experiment, dir + "/w.config.yaml");
    refused({"export", dir + "/w.config.yaml", "--checkpoint", best, "-o", dir + "/w.safetensors"},
            dir + "/w.config.yaml", "the config file beside -o, " + dir + "/w.config.yaml is the experiment file");
    CHECK_FALSE(fs::exists(dir + "/w.safetensors"));  // neither file written
  }
  SECTION("export: over an earlier export, but over no other file that is there") {
    // An experiment file of the user's as OUT, or beside it as OUT's config:
    // neither is an export, so neither is replaced.
    fs::copy_file(experiment, dir + "/mine.yaml");
    refused({"export", "--checkpoint", run, "-o", dir + "/mine.yaml"}, dir + "/mine.yaml",
            "-o " + dir + "/mine.yaml exists and is not a safetensors file an export wrote: it is left as it is");
    fs::copy_file(experiment, dir + "/m.config.yaml");
    refused({"export", "--checkpoint", run, "-o", dir + "/m.npz"}, dir + "/m.config.yaml",
            "the config file beside -o, " + dir + "/m.config.yaml exists and is not the config an export wrote");
    CHECK_FALSE(fs::exists(dir + "/m.npz"));  // neither file written
    // A safetensors file where an .npz is asked for is not one either.
    REQUIRE(run_trainer({"export", "--checkpoint", run, "-o", dir + "/again.safetensors"}, dir).exit_code == 0);
    fs::rename(dir + "/again.safetensors", dir + "/again.npz");
    refused({"export", "--checkpoint", run, "-o", dir + "/again.npz"}, dir + "/again.npz", "is not an .npz file");
    // Exported again, both files are replaced.
    for (const char* out : {"/again.safetensors", "/again.safetensors", "/twice.npz", "/twice.npz"}) {
      const auto exported = run_trainer({"export", "--checkpoint", run, "-o", dir + out}, dir);
      INFO(exported.err);
      CHECK(exported.exit_code == 0);
    }
    CHECK_THAT(read_text(dir + "/twice.config.yaml"),
               Catch::StartsWith("# trainer export: the resolved config of twice.npz (from " + best + ")\n"));
  }
  SECTION("export: OUT's extension decides the format, and --format may not contradict it") {
    REQUIRE(run_trainer({"export", "--checkpoint", run, "-o", dir + "/w.npz"}, dir).exit_code == 0);
    CHECK(read_text(dir + "/w.npz").substr(0, 2) == "PK");  // a zip, as numpy.load reads
    REQUIRE(run_trainer({"export", "--checkpoint", run, "-o", dir + "/w.bin"}, dir).exit_code == 0);
    CHECK(read_text(dir + "/w.bin").substr(0, 2) != "PK");  // safetensors: a length, then JSON
    const auto disagree =
        run_trainer({"export", "--checkpoint", run, "--format", "npz", "-o", dir + "/v.safetensors"}, dir);
    CHECK(disagree.exit_code == 2);
    CHECK_THAT(disagree.err, Catch::Contains("--format npz and -o " + dir + "/v.safetensors disagree") &&
                                 Catch::Contains(dir + "/v.npz"));
    CHECK_FALSE(fs::exists(dir + "/v.safetensors"));
  }
  SECTION("report: not over the run's record, and report.html is rewritten") {
    for (const char* name : {"metrics.jsonl", "config.yaml", "run.json"})
      refused({"report", run, "-o", run + "/" + name}, run + "/" + name, "of the run " + run);
    const auto page = run_trainer({"report", run, "-o", run + "/report.html"}, dir);
    CHECK(page.exit_code == 0);
    CHECK_THAT(read_text(run + "/report.html"), Catch::Contains("<html"));
    // Over its own page again, but over no other file that is there: an
    // experiment file named as -o was replaced by the page.
    fs::copy_file(experiment, dir + "/mine.yaml");
    refused({"report", run, "-o", dir + "/mine.yaml"}, dir + "/mine.yaml",
            "-o " + dir + "/mine.yaml exists and is not a page trainer wrote: it is left as it is");
    std::ofstream(dir + "/other.html") << "<!DOCTYPE html>\n<html><head><title>my notes</title></head></html>\n";
    refused({"report", run, "-o", dir + "/other.html"}, dir + "/other.html", "is not a page trainer wrote");
    for (int i = 0; i < 2; ++i) CHECK(run_trainer({"report", run, "-o", dir + "/page.html"}, dir).exit_code == 0);
  }
  SECTION("tune: not over the experiment, a file it extends, or a run's file") {
    std::ofstream(dir + "/top.yaml") << "extends: exp.yaml\ntrain: {batch_size: 16}\n";
    refused({"tune", dir + "/top.yaml", "--steps", "2", "--warmup", "0", "-o", dir + "/top.yaml"}, dir + "/top.yaml",
            "is the experiment file");
    refused({"tune", dir + "/top.yaml", "--steps", "2", "--warmup", "0", "-o", experiment}, experiment,
            "is a file the experiment extends");
    refused({"tune", "lr", experiment, "--steps", "5", "-o", experiment}, experiment, "is the experiment file");
    refused({"tune", "lr", experiment, "--steps", "5", "-o", run + "/config.yaml"}, run + "/config.yaml",
            "which the run keeps");
    // A file of the user's at the tuned file's name, or at -o, is not
    // replaced; tune's own earlier output is.
    std::ofstream(dir + "/top.tuned.yaml") << "# my own notes\n";
    refused({"tune", dir + "/top.yaml", "--steps", "2", "--warmup", "0"}, dir + "/top.tuned.yaml",
            "the tuned file " + dir + "/top.tuned.yaml exists and is not a file trainer tune wrote");
    refused({"tune", "lr", experiment, "--steps", "5", "-o", dir + "/top.tuned.yaml"}, dir + "/top.tuned.yaml",
            "is not a page trainer wrote");
    fs::remove(dir + "/top.tuned.yaml");
    for (int i = 0; i < 2; ++i)
      CHECK(run_trainer({"tune", dir + "/top.yaml", "--steps", "2", "--warmup", "0"}, dir).exit_code == 0);
  }
}
