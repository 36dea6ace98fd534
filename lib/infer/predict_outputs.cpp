#include "infer/predict_outputs.h"

#include <filesystem>
#include <map>

#include "util/atomic_file.h"
#include "util/error.h"
#include "util/text.h"

namespace trainer {
namespace {

namespace fs = std::filesystem;

// Whether `inner` is `outer` or lies below it (both resolved: links, "..").
bool is_within(const fs::path& inner, const fs::path& outer) {
  auto i = inner.begin();
  for (auto o = outer.begin(); o != outer.end(); ++o, ++i) {
    if (o->empty()) continue;  // a trailing separator
    if (i == inner.end() || *i != *o) return false;
  }
  return true;
}

fs::path resolved(const std::string& path) {
  std::error_code error;
  fs::path out = fs::weakly_canonical(fs::absolute(path, error), error);
  return error ? fs::absolute(path).lexically_normal() : out;
}

}  // namespace

void check_output_folder(const std::string& input, const std::string& output, bool input_is_folder) {
  if (!input_is_folder || output.empty()) return;
  const fs::path in = resolved(input), out = resolved(output);
  const char* relation = in == out ? "is" : is_within(out, in) ? "is inside" : is_within(in, out) ? "holds" : nullptr;
  if (!relation) return;
  throw UsageError("--output " + output + " " + relation + " the input folder " + input +
                       ": outputs would mix with (or replace) the inputs, and be read as inputs next time",
                   "name an output folder outside the input folder");
}

std::vector<std::string> image_output_names(const std::vector<std::string>& relatives) {
  std::map<std::string, int> stems;  // folder/stem -> inputs sharing it
  for (const std::string& relative : relatives) ++stems[fs::path(relative).replace_extension().string()];
  std::vector<std::string> names;
  std::map<std::string, std::string> taken;  // output -> the input that has it
  for (const std::string& relative : relatives) {
    const std::string stem = fs::path(relative).replace_extension().string();
    const std::string name = stems[stem] > 1 ? relative + ".png" : stem + ".png";
    const auto [earlier, fresh] = taken.emplace(name, relative);
    if (!fresh)
      throw UsageError("the inputs " + printable(earlier->second) + " and " + printable(relative) +
                           " would both be written as " + printable(name),
                       "rename one of them, or predict them separately");
    names.push_back(name);
  }
  return names;
}

void check_no_existing_outputs(const std::vector<std::string>& paths, bool overwrite,
                               const std::vector<ReadFile>& inputs) {
  std::string first;
  int64_t existing = 0;
  for (const std::string& path : paths) {
    std::error_code error;
    if (!fs::exists(fs::symlink_status(path, error))) continue;
    check_replaceable(path);
    check_not_an_input("the output", path, inputs);
    if (first.empty()) first = path;
    ++existing;
  }
  if (existing == 0 || overwrite) return;
  throw UsageError(printable(first) + " exists" +
                       (existing > 1 ? " (and " + std::to_string(existing - 1) + " more outputs)" : std::string()) +
                       "; predict does not replace files unless told to",
                   "add --overwrite to replace them, or name another --output folder");
}

void check_something_predicted(const std::string& input, int64_t predicted, int64_t skipped, const std::string& noun) {
  if (predicted > 0 || skipped == 0) return;
  const std::string which = skipped == 1 ? "its one " + noun + " was" : "all " + count_of(skipped, noun) + " were";
  throw DataError(printable(input) + ": nothing to predict: " + which + " left out (named above)",
                  "fix or replace what was left out; data.on_bad_file: skip is for leaving out some, not all");
}

}  // namespace trainer
