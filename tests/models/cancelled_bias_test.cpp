// The pass that runs a convolution without the bias an instance norm after
// it cancels: which convolutions it takes, that parameters stay the same
// tensors under the same names, and that the model computes what it did,
// the biases' gradients zero.
#include <catch2/catch.hpp>

#include <torch/torch.h>

#include "models/cancelled_bias.h"
#include "models/deblur_generator_fixture.h"
#include "models/norm_chain_fusion.h"

namespace trainer {
namespace {

using testing::deblur_generator;
using testing::forward_and_gradients;
using testing::images;

}  // namespace

TEST_CASE("the DeblurGAN generator's 23 convolutions that feed instance norms run without their biases, parameters kept",
          "[models]") {
  Model model = deblur_generator();
  const auto before = model.net->named_parameters();
  // The encoder's three, the residual blocks' 18 and the decoder's two
  // transposed ones (cropped to Keras's `same`); not the last 7x7, whose
  // output the tanh reads.
  CHECK(cancellable_biases(model) == 23);
  CHECK(cancel_normalised_biases(model) == 23);
  CHECK(cancellable_biases(model) == 0);
  const auto after = model.net->named_parameters();
  REQUIRE(after.size() == before.size());
  for (size_t i = 0; i < after.size(); ++i) {
    CHECK(after[i].key() == before[i].key());
    // The very tensors: an optimizer or a penalty that holds them still trains the model.
    CHECK(after[i].value().is_same(before[i].value()));
  }
  int replaced = 0;
  for (const auto& node : model.net->nodes())
    if (!node.modules.empty()) replaced += std::dynamic_pointer_cast<BiasCancelledConvImpl>(node.modules[0].ptr()) != nullptr;
  CHECK(replaced == 23);
  // The norms are still there for the fusion to take.
  CHECK(fusible_norm_chains(model) == 14);
}

TEST_CASE("without the cancelled biases the generator computes what it did: the output and weights' gradients within "
          "rounding, the biases' gradients zero",
          "[models]") {
  torch::manual_seed(100);
  const torch::Tensor image = torch::rand({2, 3, 32, 32}) * 2 - 1;
  Model plain = deblur_generator();
  Model skipped = deblur_generator();
  // Biases far from zero, so that leaving them out would show.
  {
    torch::NoGradGuard no_grad;
    for (Model* m : {&plain, &skipped})
      for (const auto& p : m->net->named_parameters())
        if (p.key().size() > 5 && p.key().substr(p.key().size() - 5) == ".bias") p.value().fill_(0.75);
  }
  REQUIRE(cancel_normalised_biases(skipped) == 23);
  for (Model* m : {&plain, &skipped}) m->net->eval();  // no dropout
  const auto expected = forward_and_gradients(plain, image);
  const auto got = forward_and_gradients(skipped, image);
  CHECK((got[0] - expected[0]).abs().max().item<double>() < 1e-4);
  // Leaving out a bias the norm does not cancel (the last convolution's,
  // which the tanh reads) moves the output by about 0.36.
  const auto parameters = skipped.net->named_parameters();
  const auto modules = skipped.net->named_children();
  int zero_biases = 0;
  for (size_t i = 0; i < parameters.size(); ++i) {
    const std::string& name = parameters[i].key();
    INFO(name);
    const torch::Tensor& want = expected[i + 1];
    const torch::Tensor& have = got[i + 1];
    REQUIRE(have.defined());
    const auto dot = name.rfind('.');
    if (name.substr(dot) == ".bias" && std::dynamic_pointer_cast<BiasCancelledConvImpl>(modules[name.substr(0, dot)])) {
      // Exactly zero; the plain model's is zero less rounding, next to its
      // weight's gradient (the parameter before it).
      CHECK(torch::equal(have, torch::zeros_like(have)));
      CHECK(want.norm().item<double>() < 1e-4 * expected[i].norm().item<double>());
      ++zero_biases;
    } else {
      // Within rounding as a deep ReLU network amplifies it: in the plain
      // model, moving the cancelled biases from 0.75 to 0.25 (no change at
      // all in exact arithmetic) moves these gradients by up to 1 % in norm,
      // as leaving the biases out does.
      CHECK((have - want).norm().item<double>() < 0.03 * std::max(1.0, want.norm().item<double>()));
    }
  }
  CHECK(zero_biases == 23);
}

TEST_CASE("a convolution keeps its bias where the norm would not cancel it", "[models]") {
  const auto skipped_in = [](const std::string& layers) {
    Model model = build_model(testing::layers_of(layers), images(2, 8, 8, 2));
    return cancel_normalised_biases(model);
  };
  const std::string conv = "    - {type: conv2d, filters: 4, kernel_size: 3, padding: same";
  CHECK(skipped_in(conv + "}\n    - {type: instancenorm}\n") == 1);
  CHECK(skipped_in(conv + "}\n    - {type: instancenorm, center: false, scale: false}\n") == 1);
  // An activation between them: the norm sees relu(z + b).
  CHECK(skipped_in(conv + ", activation: relu}\n    - {type: instancenorm}\n") == 0);
  // A group norm of two channels a group subtracts their common mean only.
  CHECK(skipped_in(conv + "}\n    - {type: groupnorm, groups: 2}\n") == 0);
  // The convolution's output is read by the add too, bias and all.
  CHECK(skipped_in(conv + ", name: c}\n    - {type: instancenorm, name: n}\n    - {type: add, inputs: [c, n]}\n") == 0);
  // No bias to skip, or a frozen layer.
  CHECK(skipped_in(conv + ", use_bias: false}\n    - {type: instancenorm}\n") == 0);
  CHECK(skipped_in(conv + ", trainable: false}\n    - {type: instancenorm}\n") == 0);
  // A batch norm's moving statistics would remember the bias.
  CHECK(skipped_in(conv + "}\n    - {type: batchnorm}\n") == 0);
}

TEST_CASE("trained without the cancelled biases, the generator follows the plain one's losses", "[models]") {
  torch::manual_seed(5);
  const torch::Tensor image = torch::rand({2, 3, 32, 32}) * 2 - 1;
  const torch::Tensor target = (image * 0.8).clamp(-1, 1);
  Model plain = deblur_generator();
  Model skipped = deblur_generator();
  REQUIRE(cancel_normalised_biases(skipped) == 23);
  const auto train = [&](Model& model) {
    model.net->eval();  // no dropout: the two draw no masks
    torch::optim::Adam adam(model.net->parameters(), torch::optim::AdamOptions(1e-3));
    std::vector<double> losses;
    for (int step = 0; step < 5; ++step) {
      adam.zero_grad();
      const torch::Tensor loss = (model.forward(image) - target).abs().mean();
      loss.backward();
      adam.step();
      losses.push_back(loss.item<double>());
    }
    return losses;
  };
  const auto expected = train(plain);
  const auto got = train(skipped);
  // The same weights first: the same loss, to rounding. Then each step's
  // gradients differ by rounding as the network amplifies it (about 1 % in
  // norm, as any change that is none in exact arithmetic does: the test
  // above), and so do Adam's steps: LibTorch 2.6 put the fifth loss 0.13 %
  // from the plain model's.
  CHECK(got[0] == Approx(expected[0]).epsilon(1e-4));
  for (size_t i = 1; i < got.size(); ++i) CHECK(got[i] == Approx(expected[i]).epsilon(1e-2));
  CHECK(got.back() < got.front());
}

}  // namespace trainer
