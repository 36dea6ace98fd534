#include "train/scripted_loss.h"

#include <map>
#include <mutex>

#include "models/scripted_module.h"
#include "util/error.h"

namespace trainer {
namespace {

std::mutex loaded_mutex;
std::map<std::string, ScriptedModule>& loaded() {
  static std::map<std::string, ScriptedModule> modules;
  return modules;
}

ScriptedModule module_for(const std::string& path) {
  std::lock_guard<std::mutex> lock(loaded_mutex);
  auto found = loaded().find(path);
  if (found == loaded().end()) found = loaded().emplace(path, ScriptedModule(path, "loss.path")).first;
  return found->second;
}

}  // namespace

void load_scripted_loss(const std::string& path) { module_for(path); }

torch::Tensor scripted_loss(const std::string& path, const torch::Tensor& output, const torch::Tensor& target) {
  ScriptedModule module = module_for(path);
  // A loss with buffers (a class weight table, say) follows the outputs.
  for (const auto& buffer : module->buffers())
    if (buffer.device() != output.device()) {
      module->to(output.device());
      break;
    }
  const torch::Tensor loss = module->forward2(output, target);
  if (loss.numel() != 1 || !loss.is_floating_point())
    throw ConfigError({"loss.path: " + path + " returned a " + std::string(c10::toString(loss.scalar_type())) +
                       " tensor of shape " + c10::str(loss.sizes()) +
                       "; a loss returns the batch's mean, one floating-point number"});
  return loss.reshape({});
}

}  // namespace trainer
