// scripts/examples/slurm-train.sbatch in a SLURM stood in for: an srun that
// runs the one task (and, the first time, sends it SLURM's warning signal
// before the time limit) and an scontrol that notes what it was asked. The
// first job saves and asks to be requeued; the requeued job, the same script
// with the same job id, resumes the run to its end.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "cli_runner.h"
#include "epoch_records.h"
#include "experiment_files.h"

using namespace trainer::testing;
namespace fs = std::filesystem;

namespace {

void write_executable(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
  fs::permissions(path, fs::perms::owner_all);
}

// srun: its options dropped, the command run as the only task; with
// FAKE_SRUN_SIGNAL set, SIGUSR1 to the task once its first epoch is logged,
// so that the signal lands in the second.
constexpr const char* kFakeSrun = R"(#!/bin/bash
while [[ $1 == --* ]]; do shift; done
"$@" &
task=$!
if [[ -n ${FAKE_SRUN_SIGNAL:-} ]]; then
  for ((i = 0; i < 24000; i++)); do
    [[ -s $TRAINER_RUN_DIR/metrics.jsonl ]] || ! kill -0 "$task" 2>/dev/null && break
    sleep 0.01
  done
  kill -USR1 "$task"
fi
wait "$task"
)";

constexpr const char* kFakeScontrol = R"(#!/bin/bash
echo "$@" >> "$FAKE_SCONTROL_LOG"
)";

}  // namespace

TEST_CASE("the SLURM example requeues a job stopped for its time limit, and the requeued job resumes",
          "[e2e][signal][slurm]") {
  const std::string dir = fresh_dir("slurm-requeue");
  const std::string bin = dir + "/bin";
  fs::create_directories(bin);
  write_executable(bin + "/srun", kFakeSrun);
  write_executable(bin + "/scontrol", kFakeScontrol);
  const std::string experiment = write_dropout_experiment(dir, 60000);
  const std::string job_id = std::to_string(30000 + getpid() % 9000);
  const std::string run = dir + "/job";
  const std::vector<std::string> env{"PATH=" + bin + ":" + std::getenv("PATH"),
                                     "TRAINER=" + binary_path(),
                                     "TRAINER_RUN_DIR=" + run,
                                     "FAKE_SCONTROL_LOG=" + dir + "/scontrol.log",
                                     "SLURM_JOB_ID=" + job_id,
                                     "SLURM_PROCID=0",
                                     "SLURM_NTASKS=1",
                                     "SLURM_LOCALID=0",
                                     "SLURM_NTASKS_PER_NODE=1",
                                     "SLURM_JOB_NODELIST=localhost",
                                     "SLURM_CPUS_PER_TASK=1"};
  const std::vector<std::string> job{"/bin/bash", source_dir() + "/scripts/examples/slurm-train.sbatch", experiment,
                                     "--set", "train.epochs=2"};
  auto first_env = env;
  first_env.push_back("FAKE_SRUN_SIGNAL=1");
  const auto first = wait_trainer(spawn_process(job, dir, first_env, "first-"), dir, "first-");
  INFO(first.err);
  if (finished_before_signal(first, "nothing to requeue")) return;
  REQUIRE(first.exit_code == 10);
  CHECK_THAT(first.err, Catch::Contains("requeueing it"));
  CHECK(read_text(dir + "/scontrol.log") == "requeue " + job_id + "\n");

  const auto requeued = wait_trainer(spawn_process(job, dir, env, "second-"), dir, "second-");
  INFO(requeued.err);
  REQUIRE(requeued.exit_code == 0);
  CHECK_THAT(requeued.err, Catch::Contains("resumed from " + run + "/checkpoints/"));
  CHECK(parse_records(first.out).size() + parse_records(requeued.out).size() == 2);
  CHECK_THAT(read_text(run + "/run.json"), Catch::Contains("\"status\":\"done\""));
  CHECK(read_text(dir + "/scontrol.log") == "requeue " + job_id + "\n");  // asked once, not again
}
