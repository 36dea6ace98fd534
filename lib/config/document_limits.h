#pragma once
// What a YAML document must keep to before anything walks it. yaml-cpp
// expands nothing itself: an alias (*name) is the anchored value shared, so
// nine nested aliases of nine items each ("billion laughs") are a small file
// that every walk of the tree visits 387 million times, and a value holding
// an alias to itself (`&a {x: *a}`) is a cycle that a walk follows until the
// stack runs out.
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <functional>
#include <string>

namespace trainer {

// Values a document may expand to, each alias counted as often as it is
// used: an experiment file holds hundreds, a large graph model tens of
// thousands.
constexpr int64_t kMaxDocumentValues = 1'000'000;

struct DocumentProblem {
  std::string location;  // from `locate`, at the node where it was found
  std::string message;
  explicit operator bool() const { return !message.empty(); }
};

// The first limit `document` breaks, or none. `locate` gives a node's
// location (file:line:col, or the --set that held it).
DocumentProblem document_limit_problem(const YAML::Node& document,
                                       const std::function<std::string(const YAML::Node&)>& locate);

}  // namespace trainer
