#pragma once
// The data sections of the data sets that are not images: synthetic data,
// which folders of image_pairs hold what, and a table's target, columns and
// scaling (tabular). Declared as experiment_config.h declares every section.
#include <cstdint>
#include <string>
#include <vector>

#include "spec/checks.h"
#include "spec/enums.h"
#include "spec/field_types.h"

namespace trainer {

struct SyntheticConfig {
  int64_t train_samples = 1024;
  int64_t valid_samples = 256;
  Dims shape{32};
  int64_t classes = 10;
  int64_t vocabulary = 0;

  template <class V> void visit_fields(V& v) {
    v("train_samples", train_samples, "Training samples to generate.", at_least(1));
    v("valid_samples", valid_samples, "Validation samples to generate.", at_least(1));
    v("shape", shape, "Shape of one input, without the batch dimension.");
    v("classes", classes, "Number of classes; labels are uniform in [0, classes).", at_least(2));
    v("vocabulary", vocabulary,
      "0: float inputs from N(0, 1). N > 0: integer tokens in [0, N), for embeddings.", at_least(0));
  }
};

// image_pairs: the names of the folders holding inputs and targets.
struct PairsConfig {
  std::string input = "blur";
  std::string target = "sharp";

  template <class V> void visit_fields(V& v) {
    v("input", input, "The folder name of the inputs: each image below data.path with a folder of this name "
                      "in its path is an input.", not_empty());
    v("target", target, "The folder name of the targets: an input's target is the file at its path with the "
                        "input folder renamed to this.", not_empty());
  }
};

// tabular: which values are features and which the target.
struct TabularConfig {
  TabularTask task = TabularTask::kClassification;
  std::string target;
  std::string features = "x";
  std::vector<std::string> columns;
  std::vector<std::string> exclude;
  std::string targets_path;
  bool standardize = false;

  template <class V> void visit_fields(V& v) {
    v("task", task, "classification (the target holds class labels: integers from 0, or names, numbered in "
                    "sorted order) or regression (real values; one target column, or a 2-D targets array).");
    v("target", target, "CSV: the target column's name (empty: the last column; the others are the features); "
                        ".npz: the targets array's name (empty: y).");
    v("features", features, ".npz: the features array's name (a 2-D array, a row per sample).", not_empty());
    v("columns", columns, "CSV: the feature columns, by name, in this order (empty: every column but the target "
                          "and those in exclude); the others, an id or a text column, are not read.");
    v("exclude", exclude, "CSV: columns that are not features (an id, a free-text note), left out of every column "
                          "but the target.");
    v("targets_path", targets_path, ".npy features: the .npy file of their targets (required).");
    v("standardize", standardize, "Shift and scale every feature to mean 0 and standard deviation 1 over the "
                                  "training rows (validation rows with the same numbers).");
  }
};

}  // namespace trainer
