#pragma once
// For the end-to-end tests that need GPUs: each skips, saying so, where
// `trainer devices` lists fewer than it needs (this development machine);
// scripts/gpu-check.sh runs them on a GPU machine.
#include <catch2/catch.hpp>

#include <string>

#include "cli_runner.h"

namespace trainer::testing {

// How many GPUs the trainer binary sees.
inline int visible_gpus(const std::string& dir) {
  const auto json = run_trainer({"devices", "--json"}, dir).out;
  int count = 0;
  for (size_t at = json.find("\"compute_capability\""); at != std::string::npos;
       at = json.find("\"compute_capability\"", at + 1))
    ++count;
  return count;
}

inline bool skip_without_gpus(const std::string& dir, int needed) {
  const int gpus = visible_gpus(dir);
  if (gpus >= needed) return false;
  WARN("SKIPPED: needs " << needed << " visible GPU(s), " << gpus << " here");
  return true;
}

}  // namespace trainer::testing
