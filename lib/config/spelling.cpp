#include "config/spelling.h"

#include <algorithm>
#include <cctype>
#include <utility>

#include "util/text.h"

namespace trainer {
namespace {

// Lower case, no underscores, and Keras's class names cut to trainer's:
// "GlobalAveragePooling2D" -> "globalavgpool", "MaxPooling2D" ->
// "maxpool2d", "BatchNormalization" -> "batchnorm".
std::string folded(const std::string& word) {
  std::string out;
  for (char c : word)
    if (c != '_') out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  const std::pair<const char*, const char*> keras[] = {
      {"globalaveragepooling1d", "globalavgpool"}, {"globalaveragepooling2d", "globalavgpool"},
      {"globalmaxpooling1d", "globalmaxpool"},     {"globalmaxpooling2d", "globalmaxpool"},
      {"averagepooling", "avgpool"},               {"maxpooling", "maxpool"},
      {"normalization", "norm"},                   {"meansquarederror", "mse"},
      {"meanabsoluteerror", "mae"}};
  for (const auto& [from, to] : keras)
    if (const size_t at = out.find(from); at != std::string::npos) out.replace(at, std::string(from).size(), to);
  return out;
}

}  // namespace

std::string suggest_spelling(const std::string& got, const std::vector<std::string>& names) {
  const std::string key = folded(got);
  for (const std::string& name : names)
    if (folded(name) == key) return name;
  return nearest_word(got, names);
}

std::string suggest_key(const std::string& key, const std::vector<std::string>& known) {
  const std::pair<const char*, const char*> keras[] = {
      {"learning_rate", "lr"}, {"beta_1", "beta1"}, {"beta_2", "beta2"}, {"clipnorm", "clip_norm"}};
  for (const auto& [from, to] : keras)
    if (key == from && std::find(known.begin(), known.end(), to) != known.end()) return to;
  return nearest_word(key, known);
}

}  // namespace trainer
