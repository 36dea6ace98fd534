#pragma once
// loss: {name: torchscript, path: PATH}: a loss written in PyTorch, loaded
// once per process and file, on the device of the outputs it is given.
#include <torch/torch.h>

#include <string>

namespace trainer {

// Loads `path` (once), so that a file that cannot be read is an error
// before any training. Throws IoError naming loss.path.
void load_scripted_loss(const std::string& path);

// The module's forward(output, target). Throws ConfigError when it returns
// anything but one number.
torch::Tensor scripted_loss(const std::string& path, const torch::Tensor& output, const torch::Tensor& target);

}  // namespace trainer
