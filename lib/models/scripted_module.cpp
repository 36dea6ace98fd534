#include "models/scripted_module.h"

#include <algorithm>
#include <filesystem>

#include <torch/csrc/jit/runtime/jit_exception.h>

#include "util/error.h"

namespace trainer {
namespace {

// LibTorch's modules take no '.' in a parameter's name: "se.fc1.weight" is
// registered as "se_fc1_weight" (its checkpoint and export name, LAYER.se_fc1_weight).
std::string flat_name(std::string name) {
  std::replace(name.begin(), name.end(), '.', '_');
  return name;
}

}  // namespace

ScriptedModuleImpl::ScriptedModuleImpl(const std::string& path, const std::string& what) : path_(path) {
  if (!std::filesystem::is_regular_file(path))
    throw IoError(what + ": " + path + (std::filesystem::exists(path) ? " is not a regular file" : " does not exist"),
                  "save the module in Python with torch.jit.script(module).save(PATH) (docs/models.md)");
  try {
    script_ = torch::jit::load(path, torch::kCPU);
  } catch (const c10::Error& e) {
    throw IoError(what + ": " + path + " is not a TorchScript module: " + e.what_without_backtrace(),
                  "save the module in Python with torch.jit.script(module).save(PATH) (docs/models.md)");
  }
  for (const auto& parameter : script_.named_parameters(/*recurse=*/true))
    register_parameter(flat_name(parameter.name), parameter.value, parameter.value.requires_grad());
  for (const auto& buffer : script_.named_buffers(/*recurse=*/true))
    register_buffer(flat_name(buffer.name), buffer.value);
  script_.train(is_training());
}

void ScriptedModuleImpl::train(bool on) {
  torch::nn::Module::train(on);
  script_.train(on);
}

torch::Tensor ScriptedModuleImpl::call(std::vector<torch::jit::IValue> inputs) {
  torch::jit::IValue output;
  try {
    output = script_.forward(std::move(inputs));
  } catch (const torch::jit::JITException& e) {  // raised by the script itself
    TORCH_CHECK(false, path_, ": ", e.what());
  }
  // A c10::Error, as LibTorch's own: the model builder names the layer.
  TORCH_CHECK(output.isTensor(), path_, ": the TorchScript module returned a ", output.tagKind(), ", not one tensor");
  return output.toTensor();
}

}  // namespace trainer
