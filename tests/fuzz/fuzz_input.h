#pragma once
// What every fuzz target shares: the input as a string, and the rule that
// trainer's own errors (a clear message and exit code) are the expected
// outcome of bad input. Anything else escaping, or any sanitizer report, is
// a finding.
#include <cstddef>
#include <cstdint>
#include <string>

#include "util/error.h"

#define TRAINER_FUZZ_TARGET(body)                                                   \
  extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {         \
    const std::string input(reinterpret_cast<const char*>(data), size);             \
    try {                                                                           \
      body;                                                                         \
    } catch (const trainer::Error&) {                                               \
    }                                                                               \
    return 0;                                                                       \
  }
