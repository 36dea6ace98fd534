#include "config/document_limits.h"

#include <map>
#include <utility>

#include "config/yaml_nodes.h"

namespace trainer {
namespace {

class Walk {
 public:
  explicit Walk(const std::function<std::string(const YAML::Node&)>& locate) : locate_(locate) {}

  // False at the first problem, which is then in `problem`.
  bool visit(const YAML::Node& node) {
    if (++count_ > kMaxDocumentValues) {
      problem = {locate_(node), "the document expands to more than " + std::to_string(kMaxDocumentValues) +
                                    " values through YAML aliases (*name), far more than any experiment; expand "
                                    "it by hand or use fewer nested aliases"};
      return false;
    }
    if (!node.IsSequence() && !node.IsMap()) return true;
    // A mapping or list is known by where it starts; the node itself
    // confirms that a second one there is the same one, met again inside.
    const NodeMark mark = node_mark(node);
    if (const auto found = enclosing_.find(mark); found != enclosing_.end() && found->second.is(node)) {
      problem = {locate_(node),
                 "this value holds an alias (*name) to itself, so it would contain itself without end; write the "
                 "inner copy out, or anchor a value outside it"};
      return false;
    }
    const bool inserted = enclosing_.emplace(mark, node).second;
    bool fine = true;
    if (node.IsSequence()) {
      for (const auto& item : node)
        if (!(fine = visit(item))) break;
    } else {
      for (const auto& entry : node)
        if (!(fine = visit(entry.first) && visit(entry.second))) break;
    }
    if (inserted) enclosing_.erase(mark);
    return fine;
  }

  DocumentProblem problem;

 private:
  const std::function<std::string(const YAML::Node&)>& locate_;
  int64_t count_ = 0;
  std::map<NodeMark, YAML::Node> enclosing_;  // the mappings and lists the node is inside
};

}  // namespace

DocumentProblem document_limit_problem(const YAML::Node& document,
                                       const std::function<std::string(const YAML::Node&)>& locate) {
  Walk walk(locate);
  walk.visit(document);
  return walk.problem;
}

}  // namespace trainer
