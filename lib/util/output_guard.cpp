#include "util/output_guard.h"

#include <filesystem>
#include <fstream>

#include "util/error.h"

namespace trainer {

std::string file_head(const std::string& path, size_t count) {
  std::string head(count, '\0');
  std::ifstream in(path, std::ios::binary);
  in.read(head.data(), static_cast<std::streamsize>(count));
  head.resize(static_cast<size_t>(in.gcount()));
  return head;
}

void check_replaces_own_output(const std::string& option, const std::string& path, const std::string& what,
                               size_t head_bytes, const std::function<bool(const std::string& head)>& is_own) {
  std::error_code error;
  // Not there: nothing to keep. A FIFO or a device is refused before this
  // (check_replaceable), so reading the head cannot block.
  if (!std::filesystem::exists(path, error) || is_own(file_head(path, head_bytes))) return;
  throw UsageError(option + " " + path + " exists and is not " + what + ": it is left as it is",
                   "name a file that does not exist, or remove this one first");
}

bool is_trainer_page(const std::string& head) {
  return head.rfind("<!DOCTYPE html>", 0) == 0 && head.find("<title>trainer") != std::string::npos;
}

}  // namespace trainer
