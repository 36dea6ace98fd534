#pragma once
// SIGINT/SIGTERM handling for preemptible jobs: the first signal asks the
// training loop to finish its step, save a checkpoint and stop; a second one
// ends the process at once (exit status 130).

namespace trainer {

void install_interrupt_handlers();
bool interrupt_requested();
// For tests: forget an earlier request.
void clear_interrupt_request();

}  // namespace trainer
