// The config a resumed run continues with, decided from the run directory
// alone: no checkpoint is loaded (the files stand in for them).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "config/config_loader.h"
#include "config/config_writer.h"
#include "runs/resume_config.h"
#include "test_paths.h"
#include "util/error.h"

using namespace trainer;
namespace fs = std::filesystem;

namespace {

const char* kExperiment = R"(experiment: {name: resumed}
data: {dataset: synthetic}
model:
  layers:
    - {type: dense, units: classes, activation: softmax}
optimizer: {name: sgd, lr: 0.05}
train: {epochs: 2}
)";

// A run directory as a run leaves it: its resolved config and a checkpoint.
std::string run_dir(const std::string& name) {
  const std::string dir = testing::fresh_dir(name);
  fs::create_directories(dir + "/checkpoints");
  std::ofstream(dir + "/checkpoints/epoch-0001.pt") << "stands in for a checkpoint";
  std::ofstream(dir + "/config.yaml") << to_yaml(parse_experiment(kExperiment, "exp.yaml"));
  return dir;
}

}  // namespace

TEST_CASE("resume continues with the run's own config, and --set may change only what keeps the run", "[runs][resume]") {
  const std::string dir = run_dir("resume-config");
  const ResumeConfig same = resolve_resume_config(dir, "", {}, false);
  CHECK(same.run_dir == fs::absolute(dir).string());
  CHECK(same.changes.empty());
  CHECK(*same.config.optimizer.lr == Approx(0.05));

  const ResumeConfig longer = resolve_resume_config(dir, "", {"train.epochs=5"}, false);
  REQUIRE(longer.changes.size() == 1);
  CHECK(longer.changes[0].key == "train.epochs");
  CHECK(longer.config.train.epochs == 5);

  // A change to what the run computes is refused, naming the key, unless forced.
  CHECK_THROWS_WITH(resolve_resume_config(dir, "", {"optimizer.lr=0.1"}, false),
                    Catch::Contains("optimizer.lr: 0.05 -> 0.1   (changes what the run computes)"));
  const ResumeConfig forced = resolve_resume_config(dir, "", {"optimizer.lr=0.1"}, true);
  CHECK(*forced.config.optimizer.lr == Approx(0.1));
}

TEST_CASE("resume without the run's config.yaml needs the experiment file", "[runs][resume]") {
  const std::string dir = run_dir("resume-no-config");
  fs::remove(dir + "/config.yaml");
  CHECK_THROWS_AS(resolve_resume_config(dir, "", {}, false), UsageError);
  const std::string file = dir + "/experiment.yaml";
  std::ofstream(file) << kExperiment;
  CHECK(resolve_resume_config(dir, file, {}, false).config.experiment.name == "resumed");
  CHECK_THROWS_WITH(resolve_resume_config(dir + "/nowhere", "", {}, false),
                    Catch::Contains("no such run directory or checkpoint file"));
}

TEST_CASE("the resume command is quoted for a POSIX shell", "[runs][resume]") {
  CHECK(resume_command("/runs/a-1") == "trainer run --resume /runs/a-1");
  CHECK(resume_command("/runs/with space") == "trainer run --resume '/runs/with space'");
  CHECK(resume_command("/runs/it's") == "trainer run --resume '/runs/it'\\''s'");
}
