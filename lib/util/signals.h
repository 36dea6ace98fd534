#pragma once
// SIGINT/SIGTERM/SIGHUP handling for preemptible jobs: the first signal asks
// the training loop to finish its step, save a checkpoint and stop (exit 9);
// a second one ends the process at once (exit status 130). SIGPIPE is
// ignored: a closed stdout does not end a run.

namespace trainer {

void install_interrupt_handlers();
bool interrupt_requested();
// For the supervisor of several ranks: SIGINT/SIGTERM are only counted, so
// that it can forward each one to its ranks (which save and stop, or, at
// the second, exit at once).
void install_signal_counters();
int received_signal_count();
int last_received_signal();

// The requeue signal (train.requeue_signal; SLURM's --signal=USR1@120 sends
// it before a job's time limit): the loop saves a checkpoint after its step
// and exits 10, for the job to be requeued. 0 installs nothing. Repeats
// change nothing: the checkpoint is on its way. Unblocks the signal (a
// process started with it blocked gets one sent before now here).
void install_requeue_handler(int signal);
bool requeue_requested();

// For tests: forget an earlier request.
void clear_interrupt_request();

}  // namespace trainer
