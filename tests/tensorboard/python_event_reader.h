#pragma once
// What tests/tensorboard/read_events.py (Python's protobuf, and framing and
// CRCs checked from the format's definition) reads in an event file.
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "test_paths.h"

namespace trainer::testing {

inline const char* kNeedsPythonProtobuf = "SKIPPED: needs Debian's python3 with python3-protobuf";

// The reader's JSON; nullopt when it refused the file (bad framing or CRC).
inline std::optional<nlohmann::json> python_reads_events(const std::string& file) {
  const auto out = system_python_output(source_dir() + "/tests/tensorboard/read_events.py " + event_pb2_dir() + " '" +
                                        file + "' 2>/dev/null");
  if (!out) return std::nullopt;
  return nlohmann::json::parse(*out);
}

}  // namespace trainer::testing
