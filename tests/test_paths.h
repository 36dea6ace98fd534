#pragma once
// Where tests find data and the binary; set by tests/CMakeLists.txt.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>

#include <unistd.h>

#include "data/data_root.h"

namespace trainer::testing {

inline std::string source_dir() { return TRAINER_SOURCE_DIR; }
inline std::string binary_path() { return TRAINER_BINARY; }
// The Python module protoc made of lib/tensorboard/event.proto.
inline std::string event_pb2_dir() { return TRAINER_EVENT_PB2_DIR; }
// The Reuters SGML corpus where the product looks for it in the lab's data
// folder (TRAINER_DATA_DIR; scripts/run-tests.sh sets it when the corpus is
// at hand); empty when unset, as in a user's fresh clone.
inline std::string reuters_corpus_dir() { return in_data_root("reuters21578"); }
inline bool have_reuters_corpus() {
  return !reuters_corpus_dir().empty() && std::filesystem::exists(reuters_corpus_dir() + "/reut2-000.sgm");
}
inline const char* kNeedsReutersCorpus = "SKIPPED: needs TRAINER_DATA_DIR holding reuters21578/ (the SGML corpus)";
inline std::string fashion_mnist_dir() { return "/usr/share/datasets/fashion-mnist"; }
inline bool have_fashion_mnist() {
  return std::filesystem::exists(fashion_mnist_dir() + "/train-images-idx3-ubyte.gz");
}

// Debian's python3 with the named module (numpy, torch), for reference values.
inline bool system_python_has(const std::string& module) {
  return std::system(("/usr/bin/python3 -c 'import " + module + "' >/dev/null 2>&1").c_str()) == 0;
}

// Debian's python3 run with `arguments` (a script and its arguments, as the
// shell reads them): its standard output, or nullopt when it failed.
inline std::optional<std::string> system_python_output(const std::string& arguments) {
  // -B: no __pycache__ written into the source tree by the scripts' imports.
  FILE* pipe = popen(("/usr/bin/python3 -B " + arguments).c_str(), "r");
  if (pipe == nullptr) return std::nullopt;
  std::string out;
  char buffer[4096];
  for (size_t n; (n = fread(buffer, 1, sizeof buffer, pipe)) > 0;) out.append(buffer, n);
  if (pclose(pipe) != 0) return std::nullopt;
  return out;
}

// A fresh empty directory under the build tree's temp folder.
inline std::string fresh_dir(const std::string& name) {
  const std::string dir = std::string(TRAINER_TEST_TMP) + "/" + name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

// .npz files written by numpy itself (tests/formats/write_npz.py), made
// once per test binary run; empty when numpy is missing.
inline std::string numpy_written_files() {
  static const std::string dir = [] {
    if (!system_python_has("numpy")) return std::string();
    // Per process: ctest runs test cases in parallel processes.
    const std::string out = fresh_dir("numpy-written-" + std::to_string(getpid()));
    const std::string command = "/usr/bin/python3 " + source_dir() + "/tests/formats/write_npz.py " + out;
    return std::system(command.c_str()) == 0 ? out : std::string();
  }();
  return dir;
}

}  // namespace trainer::testing
