#pragma once
// The text of the progress bar's line, fitted to a terminal width: what to
// show, and what to leave out first when the terminal is narrow. Torch-free.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace trainer {

struct ProgressState {
  std::string phase;  // "Epoch 3/10", "Valid 3/10"
  int64_t step = 0, steps = 0;
  double elapsed_seconds = 0;
  double samples_per_second = 0;
  // Running values, the loss first: {"loss", 0.4321}, {"accuracy", 0.84}.
  std::vector<std::pair<std::string, double>> values;
};

// "00:42", "12:03", "1:02:03" (hours when there are any).
std::string format_duration(double seconds);

// One line of at most `width` - 1 columns (a character in the last column
// makes some terminals wrap): the phase, a bar, step/steps, elapsed and
// ETA, the running loss, the first metric, samples/s. A narrow terminal
// loses samples/s first, then the metric, the bar, the loss, the times.
std::string format_progress_line(const ProgressState& state, int width);

// The same as a plain line for log files, whole and without a bar:
// "Epoch 3/10 step 120/469 00:12 ETA 00:35 loss 0.4322 accuracy 0.8412 5123 samples/s".
std::string format_progress_plain(const ProgressState& state);

}  // namespace trainer
