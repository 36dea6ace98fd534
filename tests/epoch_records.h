#pragma once
// The documented epoch records, parsed from a run's stdout.
#include <catch2/catch.hpp>

#include <regex>
#include <string>
#include <vector>

namespace trainer::testing {

struct Epoch {
  int number;
  std::string values;  // everything after "Epoch=N,"
  float loss;
};

// Parses stdout with the README's record grammar; fails on stray text.
inline std::vector<Epoch> parse_records(const std::string& out) {
  static const std::regex record(
      R"(={80}\d\d:\d\d:\d\d\nEpoch=(\d+),((?:[A-Z][A-Za-z0-9 ]*:[-+.0-9a-z]+,?)+)\n\n)");
  std::vector<Epoch> epochs;
  auto begin = std::sregex_iterator(out.begin(), out.end(), record);
  size_t covered = 0;
  for (auto it = begin; it != std::sregex_iterator(); ++it) {
    const auto& m = *it;
    covered += m.length();
    const std::string values = m[2].str();
    epochs.push_back({std::stoi(m[1].str()), values, std::stof(values.substr(values.find(':') + 1))});
  }
  CHECK(covered == out.size());
  return epochs;
}

// A record's figures: its values but "Graphed Steps", which a resumed run on
// a GPU counts anew (its CUDA graph warms up again with eager steps).
inline std::string figures_of(const std::string& values) { return values.substr(0, values.find(",Graphed Steps:")); }

// An interrupted run's records (stdout `cut_out`) followed by those of its
// --resume (`rest_out`) are the uninterrupted run's, epoch for epoch.
inline void check_resumed_records(const std::string& cut_out, const std::string& rest_out,
                                  const std::vector<Epoch>& expected) {
  auto combined = parse_records(cut_out);
  for (const auto& e : parse_records(rest_out)) combined.push_back(e);
  REQUIRE(combined.size() == expected.size());
  for (size_t i = 0; i < expected.size(); ++i) CHECK(figures_of(combined[i].values) == figures_of(expected[i].values));
}

}  // namespace trainer::testing
