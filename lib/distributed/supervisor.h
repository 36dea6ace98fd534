#pragma once
// `trainer run` with several devices starts one process per device (a rank)
// and supervises them, as torchrun would, without Python or MPI: it forwards
// SIGINT/SIGTERM, waits for every rank, and when one fails it gives the others
// a moment to stop on their own, then terminates and finally kills what is
// left, so no rank outlives it; a rank still running then is the one that
// hung, and the report names it. Ranks
// die with it too (PR_SET_PDEATHSIG). Torch-free.
#include <string>
#include <vector>

namespace trainer {

struct SupervisorPlan {
  std::vector<std::string> argv;  // the command line each rank re-runs
  int local_ranks = 1;            // ranks on this node
  int nnodes = 1;
  int node_rank = 0;
  std::string master_addr = "127.0.0.1";
  int master_port = 0;  // 0: a free port on this host (one node only)
  std::string run_dir;  // shared with the ranks; empty when rank 0 picks it (node > 0)
  // After a rank fails, the others learn it from its heartbeat within a
  // beat (at most 1 s) and leave on their own; those still running after
  // `grace_seconds` are terminated, then killed `kill_after_seconds` later.
  // The failure itself is found within dist.timeout, so the whole job ends
  // within dist.timeout + a few seconds of the fault.
  double grace_seconds = 2;
  double kill_after_seconds = 2;
  // train.requeue_signal's number (0: none): passed on to every rank, which
  // saves and exits 10.
  int requeue_signal = 0;
};

// Runs the ranks to the end; returns the run's exit code: 0, 9 when every rank
// stopped after an interrupt, 10 when they stopped for the requeue signal,
// 130 after a second interrupt, otherwise the
// failing rank's code (8 when it was killed by a signal). Reports a failure on
// stderr: which rank, how it ended, the last lines of its worklog and its path.
int supervise(const SupervisorPlan& plan);

// A TCP port on 127.0.0.1 that nothing listens on right now.
int find_free_port();

// The last `count` lines of a text file ("" when it cannot be read).
std::string last_lines(const std::string& path, int count);

}  // namespace trainer
