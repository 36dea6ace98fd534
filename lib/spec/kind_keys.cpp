#include "spec/kind_keys.h"

#include "util/text.h"

namespace trainer {

std::string foreign_key_note(const std::string& kind, const std::string& key, const std::vector<std::string>& takers,
                             const std::vector<std::string>& own_keys) {
  if (takers.empty()) return "";
  // Keys most kinds share (units, activation) would list half the table.
  constexpr size_t kListed = 4;
  std::vector<std::string> listed(takers.begin(), takers.begin() + std::min(takers.size(), kListed));
  std::string who = join(listed, ", ");
  if (takers.size() > kListed) who += " and " + std::to_string(takers.size() - kListed) + " more";
  return kind + " takes no '" + key + "' (" + who + (takers.size() == 1 ? " does" : " do") + "); " + kind +
         " takes: " + join(own_keys, ", ");
}

}  // namespace trainer
