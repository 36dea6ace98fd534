#pragma once
// A TorchScript module (written in Python and saved by torch.jit.script or
// torch.jit.trace) as a LibTorch module: the `torchscript` layer kind and
// the `torchscript` loss. Its parameters and buffers are registered as this
// module's own, the same tensors, so that the optimizer trains them, the
// checkpoint saves and resumes them, export writes them and moving the
// model to a device moves them; training and eval mode reach it too.
#include <torch/script.h>
#include <torch/torch.h>

#include <string>
#include <vector>

namespace trainer {

class ScriptedModuleImpl : public torch::nn::Module {
 public:
  // Throws IoError naming `what` (the key) and `path` when the file cannot
  // be read or holds no TorchScript module.
  ScriptedModuleImpl(const std::string& path, const std::string& what);

  torch::Tensor forward(const torch::Tensor& x) { return call({x}); }
  // forward(a, b) of a scripted loss: the model's output and the targets.
  torch::Tensor forward2(const torch::Tensor& a, const torch::Tensor& b) { return call({a, b}); }
  void train(bool on = true) override;

 private:
  torch::Tensor call(std::vector<torch::jit::IValue> inputs);
  torch::jit::Module script_;
  std::string path_;
};
TORCH_MODULE(ScriptedModule);

}  // namespace trainer
