// The one catch site: every failure becomes its documented exit code and a
// message on stderr saying what failed and what to do.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <new>
#include <string>

#include <torch/torch.h>

#include "commands.h"
#include "distributed/rank_messages.h"
#include "util/error.h"
#include "util/logging.h"
#include "util/torch_compat.h"

namespace trainer::app {

namespace {

// "trainer" or, in a rank other than 0, "trainer [rank 2]", so that the
// messages of several ranks sharing a terminal can be told apart.
std::string prefix() {
  return log_rank() == 0 ? "trainer" : "trainer [rank " + std::to_string(log_rank()) + "]";
}

// The last message, its lines starting "trainer:": to the supervisor when
// there is one, which prints a text every rank wrote once; else to stderr,
// marked with the rank.
void tell(const std::string& text) {
  if (send_message_to_supervisor(text)) return;
  const std::string shown = log_rank() == 0 ? text : relabel_lines(text, prefix());
  std::fwrite(shown.data(), 1, shown.size(), stderr);
}

int fail(ExitCode code, const std::string& message, const std::string& hint = {}) {
  tell("trainer: error: " + message + "\n" + (hint.empty() ? "" : "trainer: hint: " + hint + "\n"));
  return static_cast<int>(code);
}

// A command whose product is its standard output (config, runs, eval
// --json, predict's lines) has not done its job when that could not be
// written: `trainer runs --json > list.json` on a full disk must not exit 0
// with half a list. A reader that went away (EPIPE) stopped on purpose.
void check_stdout_written() {
  errno = 0;
  const bool flushed = std::fflush(stdout) == 0;
  const int error = errno;
  if (flushed && !std::ferror(stdout)) return;
  std::clearerr(stdout);
  if (error == EPIPE) return;
  throw IoError(std::string("standard output could not be written") +
                    (error != 0 ? std::string(" (") + std::strerror(error) + ")" : std::string()) +
                    ": what this command printed is incomplete",
                "check where standard output goes (free space, a closed descriptor), or send it to a file");
}

}  // namespace

int run_guarded(const Action& action, const GlobalOptions& global) {
  try {
    trainer::init_logging(trainer::parse_log_level(global.log_level));
    action();
    check_stdout_written();
    return static_cast<int>(ExitCode::kSuccess);
  } catch (const SilentExit& e) {
    return e.code;
  } catch (const trainer::ConfigError& e) {
    std::string text;
    for (const auto& problem : e.problems()) text += "trainer: config error: " + problem + "\n";
    tell(text);
    return static_cast<int>(e.code());
  } catch (const trainer::InterruptedError& e) {
    tell(std::string("trainer: ") + e.what() + "\n");
    return static_cast<int>(e.code());
  } catch (const trainer::Error& e) {
    return fail(e.code(), e.what(), e.hint());
  } catch (const std::bad_alloc&) {
    return fail(ExitCode::kOutOfMemory, "out of memory: the system refused an allocation",
                "the system refused memory (an address-space limit, ulimit -v, or none left): a smaller train.batch_size, "
                "data.max_train_samples or data.workers, or free memory on this machine");
  } catch (const c10::Error& e) {
    // The system refused LibTorch's CPU allocator (an address-space limit,
    // no memory left): memory, not a bug.
    if (compat::is_cpu_allocation_failure(e))
      return fail(ExitCode::kOutOfMemory, std::string("cpu: out of memory: ") + e.what_without_backtrace(),
                  "the system refused memory (an address-space limit, ulimit -v, or none left): a smaller train.batch_size, "
                "data.max_train_samples or data.workers, or free memory on this machine");
    return fail(ExitCode::kInternal, std::string("internal error in LibTorch: ") + e.what_without_backtrace(),
                "please report this with the command and experiment file");
  } catch (const std::exception& e) {
    return fail(ExitCode::kInternal, std::string("internal error: ") + e.what(),
                "please report this with the command and experiment file");
  }
}


}  // namespace trainer::app
