// The pass that puts fused norm chains in a built model: which layers it
// takes, that names and values stay, and that the CPU fallback is the
// unfused model exactly.
#include <catch2/catch.hpp>

#include <torch/torch.h>

#include <algorithm>

#include "models/deblur_generator_fixture.h"
#include "models/norm_chain_fusion.h"

namespace trainer {
namespace {

using testing::deblur_generator;
using testing::forward_and_gradients;
using testing::images;

std::vector<std::string> parameter_names(const Model& model) {
  std::vector<std::string> names;
  for (const auto& item : model.net->named_parameters()) names.push_back(item.key());
  return names;
}

// The type of each node's first module, in order.
std::string module_types(const Model& model) {
  std::string types;
  for (const auto& node : model.net->nodes())
    if (!node.modules.empty()) types += node.modules[0].ptr()->name() + ";";
  return types;
}

// A fused model's output and gradients (forward_and_gradients) against the
// plain model's: the output within float rounding, the gradients in norm.
// Both models round differently (the loops sum in double, LibTorch in
// float), so a ReLU whose input lies within rounding of zero can take the
// other branch in one of them: invisible in the values (the branches meet
// at zero), it moved gradients by up to 2 % in norm over 16 images tried. A
// wrongly fused chain moves them by far more; the kernels' own gradients
// are held to 1e-4 in tests/fused.
void check_matches_plain(const std::vector<torch::Tensor>& fused, const std::vector<torch::Tensor>& expected) {
  REQUIRE(fused.size() == expected.size());
  CHECK((fused[0] - expected[0]).abs().max().item<double>() < 1e-5);
  for (size_t i = 1; i < fused.size(); ++i) {
    const double scale = std::max(1.0, expected[i].norm().item<double>());
    INFO("gradient " << i << " of shape " << expected[i].sizes() << ", norm " << expected[i].norm().item<double>());
    CHECK((fused[i] - expected[i]).norm().item<double>() < 0.05 * scale);
  }
}

}  // namespace

TEST_CASE("the DeblurGAN generator's norm chains are fused: 14 of its 23 instance norms", "[models][fused]") {
  Model model = deblur_generator();
  const auto names = parameter_names(model);
  // The three of the encoder and the two of the decoder with their ReLU (the
  // last also with the padding before the 7x7 convolution), and each
  // residual block's first with its ReLU, dropout and padding; the blocks'
  // second norms feed the block's sum, and stay.
  const std::string before = module_types(model);
  // Counting leaves the model as built (a build without the CUDA kernels
  // counts them for its log line and keeps LibTorch's layers).
  CHECK(fusible_norm_chains(model) == 14);
  CHECK(module_types(model) == before);
  CHECK(fuse_norm_chains(model) == 14);
  CHECK(parameter_names(model) == names);
  CHECK(module_types(model) != before);
  CHECK(fusible_norm_chains(model) == 0);
  int chains = 0, identities = 0, with_dropout = 0, padded = 0;
  for (const auto& node : model.net->nodes()) {
    if (node.modules.empty()) continue;  // merges
    if (auto chain = std::dynamic_pointer_cast<FusedNormChainImpl>(node.modules[0].ptr())) {
      ++chains;
      CHECK(chain->chain.relu);
      with_dropout += chain->chain.dropout == 0.5;
      padded += chain->chain.pad[0] > 0;
    }
    identities += std::dynamic_pointer_cast<torch::nn::IdentityImpl>(node.modules[0].ptr()) != nullptr;
  }
  CHECK(chains == 14);
  CHECK(with_dropout == 9);
  CHECK(padded == 10);
  CHECK(identities == 14 + 9 + 10);
  // A second pass finds nothing left to fuse.
  CHECK(fuse_norm_chains(model) == 0);
}

TEST_CASE("a fused model computes what the unfused one does: the CPU reference loops, and the fallback exactly",
          "[models][fused]") {
  torch::manual_seed(100);
  const torch::Tensor image = torch::rand({2, 3, 32, 32}) * 2 - 1;
  Model plain = deblur_generator();
  Model reference = deblur_generator();
  Model fallback = deblur_generator();
  REQUIRE(fuse_norm_chains(reference, /*fuse_on_cpu=*/true) == 14);
  REQUIRE(fuse_norm_chains(fallback) == 14);
  // NCHW, as on a GPU by default (gpu.channels_last: false).
  for (Model* m : {&plain, &reference, &fallback}) m->use_nchw();
  // Without dropout (evaluation), the reference loops within float rounding.
  for (Model* m : {&plain, &reference, &fallback}) m->net->eval();
  const auto expected = forward_and_gradients(plain, image);
  const auto fused = forward_and_gradients(reference, image);
  // Every chain ran the fused loops, the decoder's too, whose inputs are
  // transposed convolutions' outputs cropped to Keras's `same` size (views).
  int64_t chains = 0;
  for (const auto& node : reference.net->nodes())
    if (!node.modules.empty())
      if (auto chain = std::dynamic_pointer_cast<FusedNormChainImpl>(node.modules[0].ptr())) {
        ++chains;
        CHECK(chain->fused_passes == 1);
      }
  CHECK(chains == 14);
  check_matches_plain(fused, expected);
  // Training, dropout included: on the CPU the fused modules run LibTorch's
  // layers, drawing the same masks from the same seed.
  plain.train_mode();
  fallback.train_mode();
  torch::manual_seed(9);
  const auto trained = forward_and_gradients(plain, image);
  torch::manual_seed(9);
  const auto same = forward_and_gradients(fallback, image);
  for (size_t i = 0; i < same.size(); ++i) CHECK(torch::equal(same[i], trained[i]));
}

TEST_CASE("channels-last, all 23 of the DeblurGAN generator's norms are fused, and compute what LibTorch's layers do",
          "[models][fused]") {
  torch::manual_seed(101);
  const torch::Tensor image = torch::rand({2, 3, 32, 32}) * 2 - 1;
  Model plain = deblur_generator();
  Model fused = deblur_generator();
  REQUIRE(fused.channels_last);  // image models are built so
  CHECK(fusible_norm_chains(fused, /*lone_norms=*/true) == 23);
  REQUIRE(fuse_norm_chains(fused, /*fuse_on_cpu=*/true, /*lone_norms=*/true) == 23);
  for (Model* m : {&plain, &fused}) m->net->eval();
  const auto expected = forward_and_gradients(plain, image);
  const auto got = forward_and_gradients(fused, image);
  // Every norm ran the fused loops on its channels-last input.
  int64_t passes = 0;
  for (const auto& node : fused.net->nodes())
    if (!node.modules.empty())
      if (auto chain = std::dynamic_pointer_cast<FusedNormChainImpl>(node.modules[0].ptr())) passes += chain->fused_passes;
  CHECK(passes == 23);
  check_matches_plain(got, expected);
}

TEST_CASE("channels-last, the DeblurGAN generator's paddings that no chain takes keep the layout, values unchanged",
          "[fused][models]") {
  Model plain = deblur_generator();
  Model kept = deblur_generator();
  REQUIRE(fuse_norm_chains(kept, /*fuse_on_cpu=*/true, /*lone_norms=*/true) == 23);
  // The input's, and each residual block's first (it follows the previous
  // block's sum, not a norm); the chains took the other 10.
  CHECK(keep_layout_in_paddings(kept, /*pad_on_cpu=*/true) == 10);
  CHECK(keep_layout_in_paddings(kept, /*pad_on_cpu=*/true) == 0);  // nothing left
  plain.net->eval();
  kept.net->eval();
  torch::NoGradGuard no_grad;
  const torch::Tensor image = torch::rand({2, 3, 32, 32}) * 2 - 1;
  CHECK((kept.forward(image) - plain.forward(image)).abs().max().item<double>() < 1e-5);
  int64_t passes = 0;
  for (const auto& node : kept.net->nodes())
    if (!node.modules.empty())
      if (auto pad = std::dynamic_pointer_cast<LayoutKeepingPadImpl>(node.modules[0].ptr())) passes += pad->own_passes;
  CHECK(passes == 10);
}

TEST_CASE("chains are fused only where the norm's output goes to the next layer alone, and not when frozen",
          "[models][fused]") {
  // How many chains the pass fuses in a model of a 3x3 convolution and `rest`.
  const auto fused_in = [](const std::string& rest) {
    Model model = build_model(testing::layers_of("    - {type: conv2d, filters: 4, kernel_size: 3, padding: same}\n" +
                                                 rest),
                              images(2, 8, 8, 2));
    return fuse_norm_chains(model);
  };
  // The norm's output is also read by the add: fusing the ReLU into it would
  // hand the add the ReLU's output.
  CHECK(fused_in("    - {type: instancenorm, name: n}\n"
                 "    - {type: activation, activation: relu, name: r}\n"
                 "    - {type: add, inputs: [n, r]}\n") == 0);
  // A norm with nothing after it to fuse, and a leaky ReLU, stay.
  CHECK(fused_in("    - {type: instancenorm}\n    - {type: activation, activation: leaky_relu}\n") == 0);
  CHECK(fused_in("    - {type: instancenorm, trainable: false}\n    - {type: activation, activation: relu}\n") == 0);
  // Padding straight after the norm (no ReLU) is taken too.
  CHECK(fused_in("    - {type: instancenorm}\n    - {type: reflection_padding2d, padding: 1}\n"
                 "    - {type: conv2d, filters: 4, kernel_size: 3}\n") == 1);
}

}  // namespace trainer
