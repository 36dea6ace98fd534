#pragma once
// What a user probably meant by a word the config does not know, for the
// "did you mean" of its error: the spellings users bring from Keras
// (`Conv2D`, `MaxPooling2D`, `BatchNormalization`, `learning_rate`) and
// small typing slips. Torch-free.
#include <string>
#include <vector>

namespace trainer {

// The value among `names` that `got` stands for: the same word once case,
// underscores and Keras's longer class names are set aside (Conv2D ->
// conv2d, GlobalAveragePooling1D -> global_avgpool, SGD -> sgd), else the
// nearest by edit distance; "" when none is near.
std::string suggest_spelling(const std::string& got, const std::vector<std::string>& names);

// The key among `known` that an unknown `key` stands for: Keras's names of
// trainer's keys (learning_rate -> lr, beta_1 -> beta1, clipnorm ->
// clip_norm), else the nearest by edit distance; "" when none is near.
std::string suggest_key(const std::string& key, const std::vector<std::string>& known);

}  // namespace trainer
