#include "runs/class_scores.h"

namespace trainer {
namespace {

double ratio(int64_t part, int64_t whole) { return whole > 0 ? static_cast<double>(part) / static_cast<double>(whole) : 0.0; }

}  // namespace

ClassScores class_scores(const ConfusionMatrix& matrix) {
  const auto n = static_cast<size_t>(matrix.classes);
  ClassScores scores;
  scores.support.assign(n, 0);
  scores.predicted.assign(n, 0);
  for (int64_t truth = 0; truth < matrix.classes; ++truth)
    for (int64_t guess = 0; guess < matrix.classes; ++guess) {
      const int64_t count = matrix.at(truth, guess);
      scores.support[static_cast<size_t>(truth)] += count;
      scores.predicted[static_cast<size_t>(guess)] += count;
    }
  for (size_t c = 0; c < n; ++c) {
    const int64_t right = matrix.at(static_cast<int64_t>(c), static_cast<int64_t>(c));
    const double precision = ratio(right, scores.predicted[c]);
    const double recall = ratio(right, scores.support[c]);
    scores.precision.push_back(precision);
    scores.recall.push_back(recall);
    scores.f1.push_back(precision + recall > 0 ? 2 * precision * recall / (precision + recall) : 0.0);
  }
  return scores;
}

MacroScores macro_scores(const ClassScores& scores) {
  MacroScores macro;
  int64_t seen = 0;
  for (size_t c = 0; c < scores.support.size(); ++c) {
    if (scores.support[c] == 0 && scores.predicted[c] == 0) continue;
    macro.precision += scores.precision[c];
    macro.recall += scores.recall[c];
    macro.f1 += scores.f1[c];
    ++seen;
  }
  if (seen == 0) return macro;
  const auto n = static_cast<double>(seen);
  return {macro.precision / n, macro.recall / n, macro.f1 / n};
}

}  // namespace trainer
