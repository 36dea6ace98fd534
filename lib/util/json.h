#pragma once
// Everything trainer writes as JSON (metrics.jsonl, run.json, every --json)
// is built as an nlohmann::ordered_json value (keys in the order written) and written by these two functions, so
// strings are always escaped and numbers always valid JSON. Only the forward
// declarations here: the full header is included where values are built.
#include <string>

#include <nlohmann/json_fwd.hpp>

namespace trainer {

// A number as JSON: null when NaN or infinite (JSON has no such numbers;
// README "JSON output"). A float is written with the 9 significant digits
// the epoch log prints (0.1f as 0.100000001, not 0.10000000149011612).
nlohmann::ordered_json json_number(double value);
nlohmann::ordered_json json_number(float value);

// One line of JSON ending in "\n": UTF-8 kept as it is, bytes that are not
// UTF-8 written as U+FFFD rather than failing.
std::string json_line(const nlohmann::ordered_json& value);

}  // namespace trainer
