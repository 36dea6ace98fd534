#include "util/read_file.h"

#include <filesystem>
#include <fstream>
#include <sstream>

namespace trainer {

std::optional<std::string> read_text_file(const std::string& path) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) return std::nullopt;  // opens, but reads as nothing
  std::ifstream file(path, std::ios::binary);
  if (!file) return std::nullopt;
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

}  // namespace trainer
