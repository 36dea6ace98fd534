// Per-class precision, recall and F1 and their macro averages, against
// values worked by hand as scikit-learn defines them.
#include <catch2/catch.hpp>

#include "runs/class_scores.h"

using namespace trainer;
using Catch::Detail::Approx;

TEST_CASE("class scores follow scikit-learn's precision_recall_fscore_support", "[metrics][classes]") {
  // y_true 0 0 0 1 1 2, y_pred 0 0 1 1 2 2; class 3 is never true nor predicted.
  const ConfusionMatrix matrix{4, {2, 1, 0, 0, /**/ 0, 1, 1, 0, /**/ 0, 0, 1, 0, /**/ 0, 0, 0, 0}};
  const ClassScores scores = class_scores(matrix);
  CHECK(scores.support == std::vector<int64_t>{3, 2, 1, 0});
  CHECK(scores.predicted == std::vector<int64_t>{2, 2, 2, 0});
  CHECK(scores.precision[0] == Approx(1.0));
  CHECK(scores.precision[1] == Approx(0.5));
  CHECK(scores.recall[0] == Approx(2.0 / 3));
  CHECK(scores.recall[2] == Approx(1.0));
  CHECK(scores.f1[0] == Approx(0.8));
  CHECK(scores.f1[2] == Approx(2.0 / 3));
  CHECK(scores.f1[3] == 0.0);
  // Class 3 is left out of the averages, as scikit-learn leaves out labels it never saw.
  const MacroScores macro = macro_scores(scores);
  CHECK(macro.precision == Approx(2.0 / 3));
  CHECK(macro.recall == Approx((2.0 / 3 + 0.5 + 1.0) / 3));
  CHECK(macro.f1 == Approx((0.8 + 0.5 + 2.0 / 3) / 3));
}

TEST_CASE("a class predicted but never true counts in the averages with zeros", "[metrics][classes]") {
  // y_true 0 0, y_pred 0 1.
  const ClassScores scores = class_scores({2, {1, 1, 0, 0}});
  CHECK(scores.precision == std::vector<double>{1.0, 0.0});
  CHECK(scores.recall == std::vector<double>{0.5, 0.0});
  const MacroScores macro = macro_scores(scores);
  CHECK(macro.precision == Approx(0.5));
  CHECK(macro.recall == Approx(0.25));
  CHECK(macro.f1 == Approx(1.0 / 3));
  CHECK(macro_scores(class_scores({2, {0, 0, 0, 0}})).f1 == 0.0);
}
