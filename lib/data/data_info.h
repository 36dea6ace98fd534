#pragma once
// What the model builder needs to know about a data set (torch-free).
#include <cstdint>
#include <string>
#include <vector>

namespace trainer {

struct DataInfo {
  std::string name;
  std::vector<int64_t> input_shape;  // one sample, no batch dimension
  bool token_inputs = false;         // int64 token ids (embedding input) instead of floats
  int64_t vocabulary = 0;            // token ids are < vocabulary
  int64_t classes = 0;
  std::vector<std::string> class_names;  // where the data names them (image_folder)
  int64_t train_size = 0;
  int64_t valid_size = 0;
};

}  // namespace trainer
