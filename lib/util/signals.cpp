#include "util/signals.h"

#include <pthread.h>

#include <csignal>
#include <unistd.h>

namespace trainer {
namespace {
// The one piece of global mutable state besides the logger: a signal handler
// can only set a flag, which the loop polls between steps.
volatile std::sig_atomic_t g_interrupts = 0;
volatile std::sig_atomic_t g_last_signal = 0;
volatile std::sig_atomic_t g_requeue = 0;

void on_requeue_signal(int) { g_requeue = 1; }

void count_signal(int signal) {
  g_last_signal = signal;
  g_interrupts = g_interrupts + 1;
}

void install(void (*handler)(int)) {
  struct sigaction action {};
  action.sa_handler = handler;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
  // A closed terminal or ssh session: save and stop, as for TERM.
  sigaction(SIGHUP, &action, nullptr);
}

void on_signal(int) {
  if (g_interrupts > 0) {
    // The user asked twice: stop now, without saving. _exit is the only
    // async-signal-safe way out.
    static const char kMessage[] = "\ntrainer: second interrupt, exiting without saving\n";
    ssize_t ignored = write(STDERR_FILENO, kMessage, sizeof kMessage - 1);
    (void)ignored;
    _exit(130);
  }
  g_interrupts = g_interrupts + 1;
}
}  // namespace

void install_interrupt_handlers() {
  install(on_signal);
  // Past a file-size limit (ulimit -f) a write then fails with EFBIG, which
  // trainer reports naming the file, instead of the process being killed.
  std::signal(SIGXFSZ, SIG_IGN);
  // A closed stdout (a pipe whose reader ended) fails the write with EPIPE,
  // which the epoch log reports once, instead of killing the run unsaved.
  std::signal(SIGPIPE, SIG_IGN);
}
void install_signal_counters() { install(count_signal); }
int received_signal_count() { return g_interrupts; }
int last_received_signal() { return g_last_signal; }

void install_requeue_handler(int signal) {
  if (signal == 0) return;
  struct sigaction action {};
  action.sa_handler = on_requeue_signal;
  sigemptyset(&action.sa_mask);
  sigaction(signal, &action, nullptr);
  // A sweep starts its points with the signal blocked, so that one sent
  // before this handler exists waits for it instead of killing the process.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, signal);
  pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
}
bool requeue_requested() { return g_requeue != 0; }

bool interrupt_requested() { return g_interrupts > 0; }
void clear_interrupt_request() {
  g_interrupts = 0;
  g_requeue = 0;
}

}  // namespace trainer
