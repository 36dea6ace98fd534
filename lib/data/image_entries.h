#pragma once
// Entries of an image folder that are named like images and are not image
// files: a dangling link, a FIFO, a device (or a link to one), a folder
// named x.png. They are left out, and the user is told how many and which,
// never silently.
#include <filesystem>
#include <string>
#include <vector>

namespace trainer {

// What `entry` is when it is named like an image (image_codec.h) and is not
// a regular file, links followed: "a dangling link", "a FIFO", "a folder",
// "a character device"; "" otherwise.
std::string unreadable_image_entry(const std::filesystem::directory_entry& entry);

// Collects unreadable_image_entry's findings during a walk and warns once.
class LeftOutEntries {
 public:
  // True (and remembered) when `entry` is one to leave out.
  bool leave_out(const std::filesystem::directory_entry& entry);
  int64_t count() const { return static_cast<int64_t>(entries_.size()); }
  // One warning naming `root`, the count, and the first few with their kind.
  void warn(const std::string& root) const;

 private:
  std::vector<std::string> entries_;  // "path (a FIFO)"
};

}  // namespace trainer
