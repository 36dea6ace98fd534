#include "data/image_entries.h"

#include "data/image_codec.h"
#include "util/logging.h"
#include "util/text.h"

namespace trainer {

namespace fs = std::filesystem;

std::string unreadable_image_entry(const fs::directory_entry& entry) {
  if (!has_image_extension(entry.path().filename().string())) return "";
  std::error_code error;
  const fs::file_status target = fs::status(entry.path(), error);  // follows links
  if (target.type() == fs::file_type::regular) return "";
  if (target.type() == fs::file_type::not_found) return entry.is_symlink(error) ? "a dangling link" : "gone";
  const bool link = entry.is_symlink(error);
  const char* kind = target.type() == fs::file_type::directory   ? "a folder, searched as one"
                     : target.type() == fs::file_type::fifo      ? "a FIFO"
                     : target.type() == fs::file_type::character ? "a character device"
                     : target.type() == fs::file_type::block     ? "a block device"
                     : target.type() == fs::file_type::socket    ? "a socket"
                                                                 : "not a regular file";
  return link ? std::string("a link to ") + kind : std::string(kind);
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
