#pragma once
// A file a command writes where the user names it is replaced only when it
// is that command's own earlier output, told by its first bytes: anything
// else there may be the user's own work. `trainer report RUN -o exp.yaml`
// replaced the experiment with a web page, and `trainer export RUN -o
// exp.yaml` with weights. Writing the same output again works as before.
// (A run's folder, a sweep's and predict's outputs have rules of their own:
// a run directory that is not empty, --overwrite.)
#include <cstddef>
#include <functional>
#include <string>

namespace trainer {

// The first `count` bytes of `path` ("" when it cannot be read).
std::string file_head(const std::string& path, size_t count);

// Throws UsageError when `path` exists and its first `head_bytes` bytes do
// not pass `is_own`: "-o exp.yaml exists and is not a page trainer wrote:
// it is left as it is". `option` names the path in the message, `what`
// what the command writes.
void check_replaces_own_output(const std::string& option, const std::string& path, const std::string& what,
                               size_t head_bytes, const std::function<bool(const std::string& head)>& is_own);

// How much of a file is_trainer_page reads.
inline constexpr size_t kPageHeadBytes = 160;
// Whether `head` starts a page trainer writes (the run report, tune lr's
// curve): an HTML document whose title starts "trainer".
bool is_trainer_page(const std::string& head);

}  // namespace trainer
