#pragma once
// Comparing a model with a PyTorch reference script: tensors go to the
// script as JSON, its results come back as JSON and are compared with a
// tolerance relative to their size.
#include <catch2/catch.hpp>
#include <torch/torch.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "test_paths.h"

namespace trainer::testing {

inline nlohmann::json tensor_json(const torch::Tensor& t) {
  const torch::Tensor flat = t.detach().contiguous().to(torch::kDouble).flatten();
  return {{"shape", t.sizes().vec()},
          {"data", std::vector<double>(flat.data_ptr<double>(), flat.data_ptr<double>() + flat.numel())}};
}

// Runs tests/models/SCRIPT with `given`; returns what it wrote.
inline nlohmann::json run_reference(const std::string& script, const nlohmann::json& given, const std::string& dir_name) {
  const std::string dir = fresh_dir(dir_name);
  std::ofstream(dir + "/given.json") << given.dump();
  REQUIRE(system_python_output(source_dir() + "/tests/models/" + script + " " + dir + "/given.json " + dir +
                               "/expected.json")
              .has_value());
  std::ifstream in(dir + "/expected.json");
  std::stringstream text;
  text << in.rdbuf();
  return nlohmann::json::parse(text.str());
}

inline void check_close(const torch::Tensor& ours, const nlohmann::json& theirs, const std::string& what) {
  const auto expected = theirs.get<std::vector<double>>();
  const torch::Tensor flat = ours.detach().contiguous().to(torch::kDouble).flatten();
  REQUIRE(static_cast<size_t>(flat.numel()) == expected.size());
  const torch::Tensor reference = torch::tensor(expected, torch::kDouble);
  const double scale = reference.abs().max().item<double>() + 1e-6;
  const double error = (flat - reference).abs().max().item<double>();
  INFO(what << ": largest difference " << error << ", largest value " << scale);
  CHECK(error <= 1e-4 * scale + 1e-6);
}

}  // namespace trainer::testing
