#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string_view>

#include "config/config_loader.h"
#include "models/model_fixtures.h"
#include "test_paths.h"
#include "optim/optimizer_factory.h"
#include "runs/checkpoint.h"
#include "util/error.h"
#include "util/torch_compat.h"

using namespace trainer;

TEST_CASE("checkpoints restore model, optimizer, counters and the RNG", "[train][checkpoint]") {
  const std::string dir = testing::fresh_dir("checkpoint");
  torch::nn::Linear model(4, 2);
  OptimizerConfig config;
  config.set_name(OptimizerKind::kAdam);
  config.lr = 0.01;
  config.weight_decay = 0.0;
  auto optimizer = make_optimizer(config, model->parameters());
  model->forward(torch::ones({1, 4})).sum().backward();
  optimizer->step();
  TrainingState state;
  state.epoch = 3;
  state.global_step = 99;
  state.optimizer = "adam";
  torch::manual_seed(5);
  save_checkpoint(dir + "/c.pt", *model, *optimizer, state);
  const auto next_random = torch::rand({3});

  torch::nn::Linear restored(4, 2);
  auto restored_optimizer = make_optimizer(config, restored->parameters());
  const auto loaded = load_checkpoint(dir + "/c.pt", *restored, restored_optimizer.get());
  CHECK(loaded.epoch == 3);
  CHECK(loaded.global_step == 99);
  CHECK(torch::equal(model->weight, restored->weight));
  CHECK(torch::equal(torch::rand({3}), next_random));  // RNG continues where it was saved

  SECTION("a checkpoint of another model is an I/O error with a hint") {
    torch::nn::Linear other(5, 2);
    CHECK_THROWS_AS(load_checkpoint(dir + "/c.pt", *other, nullptr), IoError);
  }
  SECTION("another optimizer's state is a usage error naming both") {
    OptimizerConfig sgd = config;
    sgd.set_name(OptimizerKind::kSgd);
    auto other_optimizer = make_optimizer(sgd, restored->parameters());
    CHECK_THROWS_WITH(load_checkpoint(dir + "/c.pt", *restored, other_optimizer.get(), torch::kCPU, "sgd"),
                      Catch::Contains("trained with optimizer adam, but the experiment says sgd"));
    CHECK(load_checkpoint(dir + "/c.pt", *restored, nullptr, torch::kCPU, "sgd").optimizer == "adam");
  }
  SECTION("a corrupt file is an I/O error") {
    std::ofstream(dir + "/bad.pt") << "not a checkpoint";
    CHECK_THROWS_WITH(load_checkpoint(dir + "/bad.pt", *restored, nullptr), Catch::Contains("bad.pt"));
  }
}

namespace {

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

// What a trainer before the seals (and before the finite check) wrote: the
// same archive, saved by LibTorch directly.
void save_unsealed(const std::string& path, torch::nn::Module& model, torch::optim::Optimizer& optimizer) {
  torch::serialize::OutputArchive archive, model_archive, optimizer_archive;
  model.save(model_archive);
  archive.write("model", model_archive);
  optimizer.save(optimizer_archive);
  archive.write("optimizer", optimizer_archive);
  archive.write("format_version", c10::IValue(int64_t{1}));
  for (const char* key : {"epoch", "global_step"}) archive.write(key, c10::IValue(int64_t{1}));
  archive.write("step_in_epoch", c10::IValue(int64_t{0}));
  archive.write("rng_cpu", compat::generator_state(compat::default_cpu_generator()));
  archive.save_to(path);
}

}  // namespace

TEST_CASE("checkpoints are sealed: a damaged one is refused, LibTorch still reads them", "[train][checkpoint]") {
  const std::string dir = testing::fresh_dir("checkpoint-seal");
  torch::nn::Linear model(64, 64);  // 16 KiB of weights: room to damage
  OptimizerConfig config;
  config.lr = 0.01;
  config.weight_decay = 0.0;
  auto optimizer = make_optimizer(config, model->parameters());
  save_checkpoint(dir + "/c.pt", *model, *optimizer, TrainingState{});
  const std::string bytes = read_bytes(dir + "/c.pt");
  CHECK(verify_checkpoint(bytes, dir + "/c.pt") == Seal::kVerified);
  CHECK_NOTHROW(torch::serialize::InputArchive().load_from(dir + "/c.pt"));

  torch::nn::Linear restored(64, 64);
  SECTION("4 KiB zeroed in the middle") {
    std::string damaged = bytes;
    std::fill(damaged.begin() + static_cast<long>(damaged.size() / 2) - 2048,
              damaged.begin() + static_cast<long>(damaged.size() / 2) + 2048, '\0');
    write_bytes(dir + "/c.pt", damaged);
    CHECK_THROWS_AS(load_checkpoint(dir + "/c.pt", *restored, nullptr), UnusableCheckpoint);
    CHECK_THROWS_WITH(load_checkpoint(dir + "/c.pt", *restored, nullptr),
                      Catch::Contains(dir + "/c.pt is damaged: its SHA-256 is not the one it was sealed with"));
  }
  SECTION("one bit flipped in a tensor of an unsealed checkpoint: its CRC-32 catches it") {
    save_unsealed(dir + "/old.pt", *model, *optimizer);
    std::string old = read_bytes(dir + "/old.pt");
    CHECK(verify_checkpoint(old, dir + "/old.pt") == Seal::kAbsent);
    CHECK_NOTHROW(load_checkpoint(dir + "/old.pt", *restored, nullptr));
    old[old.size() / 3] ^= 1;
    write_bytes(dir + "/old.pt", old);
    CHECK_THROWS_WITH(load_checkpoint(dir + "/old.pt", *restored, nullptr),
                      Catch::Contains("does not match its CRC-32"));
  }
  SECTION("truncated") {
    write_bytes(dir + "/c.pt", bytes.substr(0, bytes.size() - 100));
    CHECK_THROWS_AS(load_checkpoint(dir + "/c.pt", *restored, nullptr), UnusableCheckpoint);
    CHECK_THROWS_WITH(load_checkpoint(dir + "/c.pt", *restored, nullptr), !Catch::Contains("is not a checkpoint"));
  }
  SECTION("another kind of file is not called a damaged checkpoint") {
    for (const std::string& other : {std::string("experiment: {name: x}\n"), std::string()}) {
      write_bytes(dir + "/c.pt", other);
      try {
        load_checkpoint(dir + "/c.pt", *restored, nullptr);
        FAIL("loaded");
      } catch (const UnusableCheckpoint& e) {
        CHECK_THAT(e.what(), Catch::Contains("checkpoint " + dir + "/c.pt is not a checkpoint: it ") &&
                                 Catch::Contains(other.empty() ? "is empty" : "does not begin as a zip archive"));
        CHECK_THAT(e.hint(), Catch::Contains("model.init_from") && !Catch::Contains("damaged"));
      }
    }
  }
}

TEST_CASE("a checkpoint is sealed as it streams: any cut into pieces gives the same file", "[train][checkpoint]") {
  const std::string dir = testing::fresh_dir("checkpoint-stream");
  torch::nn::Linear model(512, 1024);  // 2 MiB of weights: past the megabyte the sealer passes on at a time
  OptimizerConfig config;
  config.lr = 0.01;
  auto optimizer = make_optimizer(config, model->parameters());
  save_unsealed(dir + "/plain.pt", *model, *optimizer);
  const std::string archive = read_bytes(dir + "/plain.pt");
  REQUIRE(archive.size() > (size_t{2} << 20));
  const std::string whole = seal_checkpoint(archive, "whole.pt");
  CHECK(verify_checkpoint(whole, "whole.pt") == Seal::kVerified);
  CHECK(whole.compare(0, archive.size() - 2, archive, 0, archive.size() - 2) == 0);  // all but the comment's length
  for (const size_t piece : {size_t{1}, size_t{21}, size_t{4093}, size_t{3} << 20}) {
    INFO("pieces of " << piece << " bytes");
    std::string streamed;
    size_t passed_on = 0, largest = 0;
    CheckpointSealer sealer(
        [&](std::string_view bytes) {
          streamed.append(bytes);
          ++passed_on;
          largest = std::max(largest, bytes.size());
        },
        "streamed.pt");
    for (size_t at = 0; at < archive.size(); at += piece)
      sealer.append(archive.data() + at, std::min(piece, archive.size() - at));
    sealer.finish();
    CHECK(streamed == whole);
    CHECK(passed_on >= 2);  // passed on as it came, not held whole
    if (piece < (size_t{1} << 20)) CHECK(largest < (size_t{1} << 20) + size_t{2} * piece + 64);
  }

  SECTION("bytes that are not LibTorch's archive are refused, naming the file") {
    CheckpointSealer sealer([](std::string_view) {}, "bad.pt");
    sealer.append("not a zip archive at all, just text", 35);
    CHECK_THROWS_WITH(sealer.finish(), Catch::Contains("cannot seal checkpoint bad.pt"));
    CHECK_THROWS_WITH(seal_checkpoint("short", "tiny.pt"), Catch::Contains("tiny.pt") && Catch::Contains("too short"));
    CHECK_THROWS_WITH(seal_checkpoint(whole, "twice.pt"), Catch::Contains("without a comment"));
  }
}

TEST_CASE("non-finite weights are never saved, and a checkpoint holding them is refused", "[train][checkpoint]") {
  const std::string dir = testing::fresh_dir("checkpoint-nan");
  torch::nn::Linear model(4, 2);
  OptimizerConfig config;
  config.lr = 0.01;
  config.weight_decay = 0.0;
  auto optimizer = make_optimizer(config, model->parameters());
  save_checkpoint(dir + "/good.pt", *model, *optimizer, TrainingState{});
  {
    torch::NoGradGuard no_grad;
    model->bias[1] = std::numeric_limits<float>::quiet_NaN();
  }
  CHECK(non_finite_tensors(*model) == std::vector<std::string>{"bias"});
  CHECK_THROWS_AS(save_checkpoint(dir + "/nan.pt", *model, *optimizer, TrainingState{}), DivergedError);
  CHECK_THROWS_WITH(save_checkpoint(dir + "/nan.pt", *model, *optimizer, TrainingState{}),
                    Catch::Contains("not saving checkpoint " + dir + "/nan.pt") && Catch::Contains("bias"));
  CHECK_FALSE(std::filesystem::exists(dir + "/nan.pt"));

  save_unsealed(dir + "/nan.pt", *model, *optimizer);  // as an older trainer would have
  torch::nn::Linear restored(4, 2);
  CHECK_THROWS_AS(load_checkpoint(dir + "/nan.pt", *restored, nullptr), UnusableCheckpoint);
  CHECK_THROWS_WITH(load_checkpoint(dir + "/nan.pt", *restored, nullptr), Catch::Contains("non-finite weights"));
  CHECK_NOTHROW(load_checkpoint(dir + "/good.pt", *restored, nullptr));
}

TEST_CASE("a checkpoint's values load into the layout the model was built in", "[train][checkpoint]") {
  const std::string dir = testing::fresh_dir("checkpoint_layout");
  const auto layers = testing::model_of("[{type: conv2d, filters: 3, kernel_size: 3}, {type: flatten}, {type: dense, units: classes}]");
  const auto one_channel = testing::images(1, 8, 8, 2);
  const auto first_weight = [](Model& model) {
    for (auto& p : model.net->parameters())
      if (p.dim() == 4) return p;
    FAIL("no convolution weight");
    return torch::Tensor();
  };
  Model saved = build_model(layers, one_channel);
  REQUIRE(first_weight(saved).suggest_memory_format() == torch::MemoryFormat::ChannelsLast);
  // What trainers before fresh channels-last strides saved for a one-channel
  // convolution: NCHW strides, which LibTorch's load adopts.
  {
    torch::NoGradGuard no_grad;
    auto weight = first_weight(saved);
    weight.set_data(torch::empty(weight.sizes()).copy_(weight));  // (C*H*W, H*W, W, 1)
  }
  REQUIRE(first_weight(saved).suggest_memory_format() == torch::MemoryFormat::Contiguous);
  OptimizerConfig config;
  config.lr = 0.01;
  config.weight_decay = 0.0;
  auto optimizer = make_optimizer(config, saved.net->parameters());
  save_checkpoint(dir + "/c.pt", *saved.net, *optimizer, TrainingState{});

  Model loaded = build_model(layers, one_channel);
  load_checkpoint(dir + "/c.pt", *loaded.net, nullptr);
  CHECK(first_weight(loaded).suggest_memory_format() == torch::MemoryFormat::ChannelsLast);
  CHECK(torch::equal(first_weight(loaded), first_weight(saved)));
  // A model laid out NCHW (a GPU run's) keeps NCHW when the file is channels-last (a CPU run's).
  const auto three_channels = testing::images(3, 8, 8, 2);
  Model cpu_model = build_model(layers, three_channels);
  REQUIRE(first_weight(cpu_model).suggest_memory_format() == torch::MemoryFormat::ChannelsLast);
  auto cpu_optimizer = make_optimizer(config, cpu_model.net->parameters());
  save_checkpoint(dir + "/cpu.pt", *cpu_model.net, *cpu_optimizer, TrainingState{});
  Model gpu_layout = build_model(layers, three_channels);
  gpu_layout.use_nchw();
  REQUIRE(first_weight(gpu_layout).is_contiguous());
  load_checkpoint(dir + "/cpu.pt", *gpu_layout.net, nullptr);
  CHECK(first_weight(gpu_layout).is_contiguous());
  CHECK(torch::equal(first_weight(gpu_layout), first_weight(cpu_model)));
}
