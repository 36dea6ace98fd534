#pragma once
// A classifier's validation counted class by class: the confusion matrix
// and the precision, recall and F1 of each class, as scikit-learn's
// confusion_matrix and precision_recall_fscore_support compute them.
#include <cstdint>
#include <vector>

namespace trainer {

// Row: the true class; column: the predicted one (scikit-learn's layout).
struct ConfusionMatrix {
  int64_t classes = 0;          // 0: not counted
  std::vector<int64_t> counts;  // classes x classes, row by row

  bool empty() const { return classes == 0; }
  int64_t at(int64_t truth, int64_t predicted) const { return counts[static_cast<size_t>(truth * classes + predicted)]; }
};

struct ClassScores {
  // A class never predicted has precision 0, one never true recall 0, and
  // F1 0 where both are 0 (scikit-learn's zero_division default).
  std::vector<double> precision, recall, f1;
  std::vector<int64_t> support;    // samples of the class
  std::vector<int64_t> predicted;  // samples predicted as the class
};

ClassScores class_scores(const ConfusionMatrix& matrix);

struct MacroScores {
  double precision = 0, recall = 0, f1 = 0;
};

// The unweighted means over the classes that were true or predicted at least
// once (scikit-learn's average="macro": the labels it sees). 0 with none.
MacroScores macro_scores(const ClassScores& scores);

}  // namespace trainer
