#pragma once
// What a data set tells the model builder: the contract between data/, which
// fills it, and models/, which reads it. Torch-free.
#include <cstdint>
#include <string>
#include <vector>

namespace trainer {

struct DataInfo {
  std::string name;
  std::vector<int64_t> input_shape;  // one sample, no batch dimension
  bool token_inputs = false;         // int64 token ids (embedding input) instead of floats
  int64_t vocabulary = 0;            // token ids are < vocabulary
  // A preview's vocabulary that only stands in for the data's (reuters with
  // num_words: 0, whose largest word id is known once read): it sizes an
  // embedding's table for the shape check before loading, and is neither
  // shown by summary nor held against a layer's input_dim.
  bool vocabulary_stand_in = false;
  int64_t classes = 0;
  std::vector<std::string> class_names;  // where the data names them (image_folder)
  // Data sets of image targets (image_pairs): one target's shape, and the
  // span of pixel values (1 for [0, 1]) that PSNR and SSIM are taken over.
  std::vector<int64_t> target_shape;
  double value_range = 0;
  int64_t train_size = 0;
  int64_t valid_size = 0;
};

}  // namespace trainer
