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

// For tests: forget an earlier request.
void clear_interrupt_request();

}  // namespace trainer
