#include "runs/checkpoint_choice.h"

#include <filesystem>
#include <fstream>

#include "config/config_loader.h"
#include "runs/run_dir.h"
#include "util/error.h"
#include "util/read_file.h"

namespace trainer {

namespace fs = std::filesystem;

CheckpointChoice choose_checkpoint(const std::string& path) {
  std::error_code error;
  CheckpointChoice choice;
  if (fs::is_directory(path, error)) {
    const RunDir run{path};
    if (fs::is_regular_file(run.best_checkpoint(), error)) {
      choice.checkpoint = run.best_checkpoint();
    } else {
      const std::vector<std::string> checkpoints = list_checkpoints(run);
      if (checkpoints.empty())
        throw UsageError("--checkpoint " + path + ": no checkpoints in " + run.checkpoints(),
                         "name a run directory (runs/EXPERIMENT/RUN) or a checkpoint file");
      choice.checkpoint = checkpoints.back();
    }
    if (fs::is_regular_file(run.config(), error)) choice.run_config = run.config();
    return choice;
  }
  if (!fs::exists(path, error)) throw UsageError("--checkpoint " + path + ": no such file or run directory");
  // A FIFO or a device would be read for ever: refused as an unreadable checkpoint.
  if (const std::string problem = regular_file_problem(path); !problem.empty())
    throw IoError("--checkpoint " + path + " " + problem, "name a checkpoint file (.pt) or a run directory");
  choice.checkpoint = path;
  // RUN_DIR/checkpoints/FILE.pt belongs to RUN_DIR.
  const fs::path folder = fs::path(path).parent_path();
  if (folder.filename() == "checkpoints") {
    const RunDir run{folder.parent_path().string()};
    if (fs::is_regular_file(run.config(), error)) choice.run_config = run.config();
  }
  return choice;
}

bool names_checkpoint(const std::string& path) {
  std::error_code error;
  if (fs::is_directory(path, error)) return true;
  if (!regular_file_problem(path).empty()) return false;
  char magic[4] = {};
  std::ifstream in(path, std::ios::binary);
  return in.read(magic, sizeof magic) && std::string(magic, sizeof magic) == std::string("PK\x03\x04", 4);
}

ExperimentConfig experiment_for_checkpoint(const std::string& file, const std::vector<std::string>& overrides,
                                           const CheckpointChoice& choice) {
  if (!file.empty()) return load_experiment(file, overrides);
  if (choice.run_config.empty())
    throw UsageError(choice.checkpoint + " is not in a run directory with a config.yaml: give the experiment FILE");
  return load_recorded_experiment(choice.run_config, overrides);
}

}  // namespace trainer
