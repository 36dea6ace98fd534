#pragma once
// Where tests find data and the binary; set by tests/CMakeLists.txt.
#include <filesystem>
#include <string>

namespace trainer::testing {

inline std::string source_dir() { return TRAINER_SOURCE_DIR; }
inline std::string binary_path() { return TRAINER_BINARY; }
// ../shared/data beside the project: absent in a user's fresh clone.
inline std::string shared_data_dir() { return TRAINER_SOURCE_DIR "/../shared/data"; }
inline bool have_shared_reuters() {
  return std::filesystem::exists(shared_data_dir() + "/reuters21578/reut2-000.sgm");
}
inline std::string fashion_mnist_dir() { return "/usr/share/datasets/fashion-mnist"; }
inline bool have_fashion_mnist() {
  return std::filesystem::exists(fashion_mnist_dir() + "/train-images-idx3-ubyte.gz");
}

// A fresh empty directory under the build tree's temp folder.
inline std::string fresh_dir(const std::string& name) {
  const std::string dir = std::string(TRAINER_TEST_TMP) + "/" + name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace trainer::testing
