#include <catch2/catch.hpp>

#include <algorithm>

#include "watch/progress_line.h"

using namespace trainer;

namespace {

// Epoch 3 of 10 at step 120 of 469, 12 s in.
ProgressState epoch_in_progress() {
  ProgressState state;
  state.phase = "Epoch 3/10";
  state.step = 120;
  state.steps = 469;
  state.elapsed_seconds = 12;
  state.samples_per_second = 5123;
  state.values = {{"loss", 0.4321}, {"accuracy", 0.8412}};
  return state;
}

}  // namespace

TEST_CASE("progress line: durations with hours when there are any", "[train][progress]") {
  CHECK(format_duration(0) == "00:00");
  CHECK(format_duration(42.4) == "00:42");
  CHECK(format_duration(723) == "12:03");
  CHECK(format_duration(3723) == "1:02:03");
  CHECK(format_duration(90000) == "25:00:00");
  CHECK(format_duration(-1) == "00:00");
}

TEST_CASE("progress line: everything on a wide terminal, least useful parts dropped on a narrow one",
          "[train][progress]") {
  ProgressState state = epoch_in_progress();
  const std::string wide = format_progress_line(state, 120);
  CHECK(wide == "Epoch 3/10 [=======>                    ] 120/469 00:12 ETA 00:35 loss 0.4321 accuracy 0.8412 "
                "5123 samples/s");
  for (int width = 1; width <= 160; ++width) {
    INFO("width " << width);
    CHECK(static_cast<int>(format_progress_line(state, width).size()) <= std::max(1, width - 1));
  }
  // Narrower: samples/s goes first, then the metric, the bar, the loss, the times.
  CHECK_THAT(format_progress_line(state, 90), Catch::Contains("samples/s") && Catch::Contains("[==>      ]"));
  CHECK_THAT(format_progress_line(state, 80), !Catch::Contains("samples/s") && Catch::Contains("accuracy"));
  CHECK_THAT(format_progress_line(state, 70), !Catch::Contains("accuracy") && Catch::Contains("["));
  CHECK(format_progress_line(state, 40) == "Epoch 3/10 120/469 00:12 ETA 00:35");
  CHECK(format_progress_line(state, 30) == "Epoch 3/10 120/469");
  CHECK(format_progress_line(state, 8) == "Epoch 3");
}

TEST_CASE("progress line: a plain line for log files holds everything and no bar", "[train][progress]") {
  ProgressState state = epoch_in_progress();
  CHECK(format_progress_plain(state) ==
        "Epoch 3/10 step 120/469 00:12 ETA 00:35 loss 0.4321 accuracy 0.8412 5123 samples/s");
  state.values.clear();
  CHECK(format_progress_plain(state) == "Epoch 3/10 step 120/469 00:12 ETA 00:35 5123 samples/s");
}

TEST_CASE("progress line: the bar fills with the steps done", "[train][progress]") {
  ProgressState state;
  state.phase = "Valid 1/1";
  state.steps = 10;
  state.step = 10;
  CHECK_THAT(format_progress_line(state, 80), Catch::Contains("[============================]"));
  state.step = 0;
  CHECK_THAT(format_progress_line(state, 80), Catch::Contains("[>                           ]"));
  CHECK_THAT(format_progress_line(state, 80), Catch::Contains("00:00 ETA 00:00"));
}
