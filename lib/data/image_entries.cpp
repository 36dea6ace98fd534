#include "data/image_entries.h"

#include <sys/stat.h>

#include "images/image_codec.h"
#include "util/logging.h"
#include "util/read_file.h"
#include "util/text.h"

namespace trainer {

namespace fs = std::filesystem;

std::string unreadable_image_entry(const fs::directory_entry& entry) {
  if (!has_image_extension(entry.path().filename().string())) return "";
  std::error_code error;
  const bool link = entry.is_symlink(error);
  struct stat target {};
  if (::stat(entry.path().c_str(), &target) != 0) return link ? "a dangling link" : "gone";  // follows links
  if (S_ISREG(target.st_mode)) return "";
  const std::string kind = S_ISDIR(target.st_mode) ? "a folder, searched as one" : file_kind_text(target.st_mode);
  return link ? "a link to " + kind : kind;
}

bool LeftOutEntries::leave_out(const fs::directory_entry& entry) {
  const std::string kind = unreadable_image_entry(entry);
  if (kind.empty()) return false;
  entries_.push_back(printable(entry.path().string()) + " (" + kind + ")");
  return true;
}

void LeftOutEntries::warn(const std::string& root) const {
  if (entries_.empty()) return;
  constexpr size_t kNamed = 5;
  std::string named;
  for (size_t i = 0; i < entries_.size() && i < kNamed; ++i) named += (i ? ", " : "") + entries_[i];
  if (entries_.size() > kNamed) named += ", ...";
  log().warn("{}: left out {} {} named like images that are not image files: {}", printable(root), count(),
             count() == 1 ? "entry" : "entries", named);
}

}  // namespace trainer
