#include "data/data_root.h"

#include <cstdlib>

namespace trainer {

std::string in_data_root(const std::string& name) {
  const char* root = std::getenv(kDataRootVariable);
  if (root == nullptr || *root == '\0') return {};
  return std::string(root) + "/" + name;
}

}  // namespace trainer
