#include "data/image_pairs_index.h"

#include <algorithm>
#include <filesystem>
#include <set>
#include <system_error>

#include "images/image_codec.h"
#include "data/image_entries.h"
#include "util/error.h"

namespace trainer {
namespace {

namespace fs = std::filesystem;

// `relative` with its first folder named `from` renamed `to`; empty when no
// folder of it is named `from`.
std::string swapped(const fs::path& relative, const std::string& from, const std::string& to) {
  fs::path out;
  bool found = false;
  const fs::path folder = relative.parent_path();
  for (const auto& part : folder) {
    if (!found && part == from) {
      out /= to;
      found = true;
    } else {
      out /= part;
    }
  }
  return found ? (out / relative.filename()).string() : std::string();
}

void require_folder(const std::string& root, const std::string& what) {
  std::error_code error;
  if (!fs::is_directory(root, error))
    throw DataError(root + (fs::exists(root, error) ? " is not a folder" : " does not exist"), what);
}

}  // namespace

std::vector<std::string> index_images_below(const std::string& root) {
  require_folder(root, "data.path names the folder of the sharp images");
  std::error_code error;
  std::set<std::string> found;
  LeftOutEntries left_out;
  for (fs::recursive_directory_iterator it(root, error), end; !error && it != end; it.increment(error))
    if (!left_out.leave_out(*it) && it->is_regular_file(error) && has_image_extension(it->path().filename().string()))
      found.insert((fs::path(root) / it->path().lexically_relative(root)).string());
  if (error) throw DataError(root + ": cannot list it (" + error.message() + ")");
  left_out.warn(root);
  if (found.empty()) throw DataError(root + ": no images (.png, .jpg, .jpeg or .bmp) in it or its subfolders");
  return {found.begin(), found.end()};
}

std::vector<ImagePair> index_image_pairs(const std::string& root, const std::string& input, const std::string& target) {
  require_folder(root, "data.path names the folder holding the '" + input + "' and '" + target + "' folders");
  std::error_code error;
  std::set<std::string> inputs, targets;  // relative paths
  LeftOutEntries left_out;
  for (fs::recursive_directory_iterator it(root, error), end; !error && it != end; it.increment(error)) {
    if (left_out.leave_out(*it) || !it->is_regular_file(error) || !has_image_extension(it->path().filename().string())) continue;
    const fs::path relative = it->path().lexically_relative(root);
    if (!swapped(relative, input, target).empty()) inputs.insert(relative.string());
    else if (!swapped(relative, target, input).empty()) targets.insert(relative.string());
  }
  if (error) throw DataError(root + ": cannot list it (" + error.message() + ")");
  left_out.warn(root);
  std::vector<ImagePair> pairs;
  for (const std::string& relative : inputs) {
    const std::string partner = swapped(relative, input, target);
    if (targets.erase(partner) == 0)
      throw DataError(root + "/" + relative + ": no target image " + root + "/" + partner,
                      "every '" + input + "' image needs the '" + target + "' image at the same path");
    pairs.push_back({root + "/" + relative, root + "/" + partner});
  }
  if (!targets.empty())
    throw DataError(root + "/" + *targets.begin() + ": no input image " + root + "/" +
                        swapped(*targets.begin(), target, input),
                    "every '" + target + "' image needs the '" + input + "' image at the same path");
  if (pairs.empty())
    throw DataError(root + ": no image pairs (no images in a folder named '" + input + "')",
                    "data.pairs.input and data.pairs.target name the folders of inputs and targets");
  return pairs;
}

}  // namespace trainer
