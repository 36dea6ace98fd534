#pragma once
// `trainer sweep`: each point of a plan a normal `trainer run` in a process
// of its own, `parallel` at a time with the cores split between them, in
// SWEEP_DIR/POINT_NAME. A point that fails does not stop the others; a point
// already done is skipped and one with checkpoints resumed, so re-running
// the same sweep finishes it. SIGINT/SIGTERM stop launching and pass one
// SIGTERM to each running point (which saves a checkpoint and exits 9).
// With a prune rule, a point judged weak after an epoch is stopped the same
// way and marked "pruned" (in its run.json as well). Torch-free.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sweep/point_pruner.h"
#include "sweep/sweep_plan.h"

namespace trainer {

struct SweepSettings {
  std::string executable;                // this program, started as `EXECUTABLE run ...`
  std::vector<std::string> global_args;  // before `run`: "--log-level", "warn"
  std::string file;                      // the experiment file
  std::vector<std::string> fixed;        // --set overrides every point shares
  std::string sweep_dir;                 // LOG_DIR/EXPERIMENT/sweep-NAME
  int parallel = 1;
  // --devices: each point trains on one of these (--set devices=ENTRY), a
  // slot held while it runs; an entry repeated is a device several points
  // share. Empty: the points' own devices. `parallel` is then their number.
  std::vector<std::string> device_slots;
  int threads_per_point = 0;  // --set cpu_threads=N for each point; 0: leave the config's
  std::string monitor;        // the metrics.jsonl key each point is judged by
  bool higher_is_better = false;
  PruneSettings prune;
  // The points' train.requeue_signal (0: none): a sweep in a batch job gets
  // it before the time limit, passes it to every running point (each saves
  // a checkpoint and exits 10), starts no more and exits 10 itself.
  int requeue_signal = 0;
};

struct PointOutcome {
  SweepPoint point;
  std::string run_dir;
  std::string device;  // the --devices entry it trained on; empty without --devices
  std::string status;  // done, pruned, failed, interrupted, requeue, not started
  // Done (or pruned) by an earlier run of the same sweep, and skipped this
  // time (status stays "done", which scripts test for).
  bool skipped = false;
  int exit_code = -1;
  std::optional<double> best;
  int64_t best_epoch = 0;
  int64_t epochs_done = 0;
  double seconds = 0;
};

struct SweepOutcome {
  std::vector<PointOutcome> points;  // in plan order
  bool interrupted = false;
  bool requeued = false;  // stopped for the requeue signal
};

SweepOutcome run_sweep(const SweepPlan& plan, const SweepSettings& settings);

// The table printed at the end: every point best first (pruned ones below
// those that finished, failed ones last),
// with status, epochs, best monitored value and its epoch, and time.
std::string format_sweep_table(const SweepOutcome& outcome, const SweepSettings& settings);

// SWEEP_DIR/sweep.json's content: one JSON object on one line.
std::string format_sweep_json(const SweepOutcome& outcome, const SweepSettings& settings);

// What `trainer sweep` exits with: 9 when interrupted, 10 when stopped for
// the requeue signal (run it again to go on), else the exit code of
// the first point (in plan order) that failed, else 0.
int sweep_exit_code(const SweepOutcome& outcome);

}  // namespace trainer
