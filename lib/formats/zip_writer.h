#pragma once
// Writes ZIP archives in memory: the container of numpy's .npz files. Stored
// (uncompressed) members dated 1980-01-01, so that the same members give the
// same bytes whatever the clock says. Without ZIP64: over 4 GiB or 65,535
// members is refused (std::length_error).
#include <cstddef>
#include <string>

namespace trainer {

// Members are added one at a time, so that only the archive so far and the
// member being added are held.
class ZipWriter {
 public:
  void add(const std::string& name, const std::string& content);
  // The whole archive; the writer is empty afterwards.
  std::string finish();

 private:
  std::string out_, directory_;
  size_t members_ = 0;
};

}  // namespace trainer
