#pragma once
// Value types of config fields that are more than a number or a word.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "spec/enums.h"

namespace trainer {

// train.batch_size: a count, or `auto`: the largest batch the device's
// memory budget holds, found when the run starts (a run's config.yaml
// keeps the number it found).
struct BatchSize {
  int64_t value = 32;
  bool automatic = false;
};

// A layer size: a number, or a keyword resolved from the data
// (`units: classes`, `input_dim: vocabulary`).
struct SizeRef {
  int64_t value = 0;
  std::string keyword;  // empty when `value` holds the size
  bool is_keyword() const { return !keyword.empty(); }
  static SizeRef of(int64_t v) { return {v, {}}; }
  static SizeRef from(const std::string& k) { return {0, k}; }
};

// Kernel, stride and pool sizes: `5` or `[5, 3]`; a single number applies to
// every spatial dimension. Empty means "the layer's default".
using Dims = std::vector<int64_t>;

// Amounts of padding or cropping, each >= 0: `1`, `[1, 2]` (height, width) or
// `[top, bottom, left, right]`.
struct Amounts {
  std::vector<int64_t> values;
};

// reshape's target: the sizes of the dimensions after the batch's, each
// >= 1 but for at most one -1 (inferred from the others, as Keras's).
struct TargetShape {
  std::vector<int64_t> sizes;
};

// Keras `valid` / `same`, or an explicit amount of zero padding on each side.
struct PaddingSpec {
  ConvPadding mode = ConvPadding::kValid;
  int64_t amount = 0;  // used when mode == kExplicit
};

// A range random values are drawn from: `[low, high]` (low <= high), or one
// number for a fixed value.
struct Span {
  double low = 0;
  double high = 0;
};

// Per-device memory budget; 0 means "grow on demand" (no budget).
// Written as MiB (`4096`) or with a unit (`512MiB`, `4GiB`).
struct MemoryLimit {
  int64_t mib = 0;
};
inline constexpr int64_t kMaxMemoryMib = int64_t{1} << 40;

// loss.class_weights: none (null, the default), `balanced` (n / (classes x
// n_c) from the training labels, as scikit-learn's compute_class_weight), or
// one weight a class.
struct ClassWeights {
  bool balanced = false;
  std::vector<double> values;
  bool any() const { return balanced || !values.empty(); }
};

// Renaming rules, in the order written: `{"^features\\.0\\.": "conv2d."}`,
// each a regular expression (ECMAScript) and its replacement ($1 for a
// group), applied one after the other to a name.
struct NameMap {
  std::vector<std::pair<std::string, std::string>> rules;
};

// Learning-rate multipliers by layer, in the order written: `{"conv2d*": 0.1}`,
// each a glob pattern (* and ?) of trainer summary's layer names and a
// factor >= 0; a layer takes the first rule that matches it.
struct LayerScales {
  std::vector<std::pair<std::string, double>> rules;
};

// `cpu`, `gpu:0`, `gpu:0,1,2,3`, `gpu:all`, or a list such as [cpu, cpu]:
// one entry per rank.
struct DeviceList {
  std::vector<std::string> entries{"cpu"};
};

}  // namespace trainer
