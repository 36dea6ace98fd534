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

#include "models/model.h"
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

// `model` against tests/models/SCRIPT (written with tests/models/reference_io.py):
// its parameters are first drawn from U(-spread, spread), away from the
// initial ones and zeros so that every weight shows in the output; then the
// output, the input gradient (float inputs) and every parameter gradient for
// `input` and a random output gradient must equal the script's. Returns the
// output.
inline torch::Tensor check_against_reference(Model& model, const torch::Tensor& input, const std::string& script,
                                             double spread = 0.6) {
  {
    torch::NoGradGuard no_grad;
    for (auto& p : model.net->parameters()) p.uniform_(-spread, spread);
  }
  const bool tokens = !torch::isFloatingType(input.scalar_type());
  const torch::Tensor x = tokens ? input : input.detach().clone().requires_grad_(true);
  const torch::Tensor output = model.forward(x);
  const torch::Tensor grad_output = torch::randn_like(output);
  (output * grad_output).sum().backward();
  nlohmann::json given;
  for (const auto& p : model.net->named_parameters()) given["params"][p.key()] = tensor_json(p.value());
  given["input"] = tensor_json(x);
  given["input_is_tokens"] = tokens;
  given["grad_output"] = tensor_json(grad_output);
  const auto expected = run_reference(script, given, script.substr(0, script.find('.')));
  check_close(output, expected["output"], "output");
  if (!tokens) check_close(x.grad(), expected["input_grad"], "input gradient");
  for (const auto& p : model.net->named_parameters())
    check_close(p.value().grad(), expected["param_grads"][p.key()], p.key() + " gradient");
  return output;
}

}  // namespace trainer::testing
