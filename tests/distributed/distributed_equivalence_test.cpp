// Data-parallel training is the single-process training of the global batch:
// the same parameters after the same steps, whatever the split.
#include <catch2/catch.hpp>

#include <fstream>

#include "cli_runner.h"
#include "config/config_loader.h"
#include "data/dataset.h"
#include "distributed/gradient_reducer.h"
#include "epoch_records.h"
#include "experiment_files.h"
#include "runs/checkpoint.h"
#include "train/experiment_setup.h"

using namespace trainer;
using namespace trainer::testing;

namespace {

std::string mlp_experiment(const std::string& dir, int64_t samples) {
  MlpExperiment spec;
  spec.name = "eq";
  spec.seed = 5;
  spec.samples = samples;
  spec.features = 12;
  spec.classes = 3;
  spec.units = 24;
  spec.activation = "tanh";
  spec.softmax = true;
  spec.file = "experiment.yaml";
  spec.extra = "optimizer: {name: momentum, lr: 0.1, momentum: 0.9}\nmetrics: [accuracy]\ntrain: {epochs: 2, batch_size: 16}\n"
               "dist: {timeout: 20}\n";
  return write_mlp_experiment(dir, spec);
}

// The parameters in a run's final checkpoint, flattened.
torch::Tensor final_parameters(const std::string& experiment, const std::string& run_dir, int64_t epochs) {
  const ExperimentConfig config = load_experiment(experiment, {});
  const DataSplits data = load_dataset(config.data, config.experiment.seed);
  Model model = build_seeded_model(config, data.info);
  char name[32];
  std::snprintf(name, sizeof name, "/checkpoints/epoch-%04lld.pt", static_cast<long long>(epochs));
  load_checkpoint(run_dir + name, *model.net, nullptr);
  std::vector<torch::Tensor> flat;
  for (const auto& p : model.net->parameters()) flat.push_back(p.detach().flatten());
  return torch::cat(flat);
}

struct Run {
  CliResult result;
  torch::Tensor parameters;
};

Run train(const std::string& dir, const std::string& experiment, const std::string& name,
          std::vector<std::string> extra) {
  std::vector<std::string> args{"run", experiment, "--set", "log.run_name=" + name};
  args.insert(args.end(), extra.begin(), extra.end());
  Run run{run_trainer(args, dir), {}};
  INFO(run.result.err);
  REQUIRE(run.result.exit_code == 0);
  run.parameters = final_parameters(experiment, dir + "/runs/eq/" + name, 2);
  return run;
}

void check_same_training(const Run& a, const Run& b) {
  const double difference = (a.parameters - b.parameters).abs().max().item<double>();
  INFO("largest parameter difference " << difference);
  CHECK(difference < 1e-5);
  const auto records_a = parse_records(a.result.out);
  const auto records_b = parse_records(b.result.out);
  REQUIRE(records_a.size() == records_b.size());
  for (size_t i = 0; i < records_a.size(); ++i) CHECK(records_a[i].loss == Approx(records_b[i].loss).epsilon(1e-5));
}

// Records the collectives the reducer starts, and sums nothing (one rank).
class RecordingCommunicator : public Communicator {
 public:
  std::vector<int64_t> sizes;
  int rank() const override { return 0; }
  int world_size() const override { return 1; }
  std::string describe() const override { return "recording"; }
  std::unique_ptr<PendingCollective> all_reduce_async(torch::Tensor tensor, ReduceOp) override {
    sizes.push_back(tensor.numel());
    struct Done : PendingCollective {
      void wait() override {}
    };
    return std::make_unique<Done>();
  }
  void broadcast(std::vector<torch::Tensor>, int) override {}
  void barrier() override {}
  std::string share_from_rank0(const std::string&, const std::string& value) override { return value; }
  std::unique_ptr<KeyValueStore> open_store() override { return nullptr; }
};

// One process with batch `single_batch` against ranks with `rank_batch` each,
// on `samples` training samples.
void check_split(const std::string& name, int64_t samples, int64_t single_batch, const std::string& devices,
                 int64_t rank_batch) {
  const std::string dir = fresh_dir(name);
  const std::string experiment = mlp_experiment(dir, samples);
  const Run single = train(dir, experiment, "single", {"--set", "train.batch_size=" + std::to_string(single_batch)});
  const Run split = train(dir, experiment, "split",
                          {"--devices", devices, "--set", "train.batch_size=" + std::to_string(rank_batch)});
  check_same_training(single, split);
}

}  // namespace

TEST_CASE("2 ranks x batch 16 train exactly as 1 process x batch 32", "[dist][equivalence]") {
  // 650 samples: 20 full global batches and a last one of 10 (5 per rank).
  check_split("dist-equivalence", 650, 32, "cpu,cpu", 16);
}

TEST_CASE("uneven shards and more ranks than samples train as one process", "[dist][equivalence]") {
  SECTION("3 ranks x 4 on 10 samples: shards of 4, 3 and 3") { check_split("dist-uneven-10", 10, 12, "cpu,cpu,cpu", 4); }
  SECTION("3 ranks on 2 samples: the third rank contributes nothing, yet steps with the others") {
    check_split("dist-uneven-2", 2, 3, "cpu,cpu,cpu", 1);
  }
}

TEST_CASE("accumulated batches train as one batch as large: batch 8 x 4, and 2 ranks x batch 4 x 4, as batch 32",
          "[dist][equivalence][accumulate]") {
  // 650 samples: 20 steps of 32 and a last of 10, which the accumulating
  // runs make of the batches that are left (8 + 2 samples, one sample a rank).
  const std::string dir = fresh_dir("accumulate-equivalence");
  const std::string experiment = mlp_experiment(dir, 650);
  const Run large = train(dir, experiment, "large", {"--set", "train.batch_size=32"});
  const Run accumulated =
      train(dir, experiment, "accumulated", {"--set", "train.batch_size=8", "--set", "train.accumulate=4"});
  check_same_training(large, accumulated);
  CHECK_THAT(accumulated.result.err, Catch::Contains("21 steps per epoch"));
  const Run ranks = train(dir, experiment, "ranks",
                          {"--devices", "cpu,cpu", "--set", "train.batch_size=4", "--set", "train.accumulate=4"});
  check_same_training(large, ranks);
}

namespace {

// Each parameter's gradient of the batch's mean squared output, without a reducer.
std::vector<torch::Tensor> plain_gradients(torch::nn::Sequential& net, const torch::Tensor& input) {
  net->zero_grad(true);
  net->forward(input).pow(2).mean().backward();
  std::vector<torch::Tensor> gradients;
  for (const auto& p : net->parameters()) gradients.push_back(p.grad().clone());
  return gradients;
}

}  // namespace

TEST_CASE("the reducer fills buckets in reverse layer order and averages by sample share", "[dist][reducer]") {
  torch::manual_seed(1);
  torch::nn::Sequential net(torch::nn::Linear(64, 64), torch::nn::Tanh(), torch::nn::Linear(64, 8));
  RecordingCommunicator communicator;
  // 64x64 floats = 16 KiB: a cap of 16 KiB gives the first weight a bucket
  // of its own.
  GradientReducer reducer(communicator, net->parameters(), 16.0 / 1024.0);
  const auto input = torch::randn({5, 64});
  const std::vector<torch::Tensor> expected = plain_gradients(net, input);

  net->zero_grad(true);
  reducer.begin_step(0.25, /*vote=*/1.0f);
  net->forward(input).pow(2).mean().backward();
  reducer.finalize();
  CHECK(reducer.control_sum() == 1.0f);
  const auto parameters = net->parameters();
  for (size_t i = 0; i < parameters.size(); ++i) CHECK(torch::allclose(parameters[i].grad(), expected[i] * 0.25));
  // Last layer first: its bias and weight (8 + 512) and the first layer's
  // bias fit one bucket, then the first layer's weight on its own, followed
  // by the stop vote.
  CHECK(communicator.sizes == std::vector<int64_t>{8 + 512 + 64, 4096 + 1});
  CHECK(reducer.stats().buckets_per_step == 2);

  SECTION("a rank without samples still joins every collective, with zeros") {
    communicator.sizes.clear();
    net->zero_grad(true);
    reducer.begin_step(0.0);
    reducer.finalize();
    CHECK(communicator.sizes == std::vector<int64_t>{8 + 512 + 64, 4096 + 1});
    CHECK(reducer.control_sum() == 0.0f);
    for (const auto& p : net->parameters()) CHECK(p.grad().abs().sum().item<float>() == 0.0f);
  }
}

TEST_CASE("a captured step's reducer: the hooks' copies without collectives, then every bucket reduced in order",
          "[dist][reducer][cuda_graph]") {
  torch::manual_seed(1);
  torch::nn::Sequential net(torch::nn::Linear(64, 64), torch::nn::Tanh(), torch::nn::Linear(64, 8));
  // A parameter the forward never reads: its bucket part must be zeros.
  torch::Tensor unused = torch::zeros({3}, torch::requires_grad());
  std::vector<torch::Tensor> parameters = net->parameters();
  parameters.insert(parameters.begin(), unused);
  RecordingCommunicator communicator;
  GradientReducer reducer(communicator, parameters, 16.0 / 1024.0);
  const auto input = torch::randn({5, 64});
  const std::vector<torch::Tensor> expected = plain_gradients(net, input);
  // An eager step leaves the unused parameter's part of its bucket non-zero.
  net->zero_grad(true);
  unused.mutable_grad() = torch::ones({3});
  reducer.begin_step(0.5);
  reducer.finalize();
  REQUIRE(unused.grad().abs().sum().item<float>() > 0);
  communicator.sizes.clear();

  // What a capture records (run eagerly here: on the CPU nothing is captured).
  net->zero_grad(true);
  unused.mutable_grad().reset();
  reducer.begin_capture(0.25);
  net->forward(input).pow(2).mean().backward();
  reducer.end_capture();
  CHECK(communicator.sizes.empty());
  reducer.reduce_replayed(/*vote=*/1.0f);
  // The unused parameter has the last bucket to itself, with the vote.
  CHECK(communicator.sizes == std::vector<int64_t>{8 + 512 + 64, 4096, 3 + 1});
  CHECK(reducer.control_sum() == 1.0f);
  CHECK(reducer.weight() == 0.25);
  const auto trained = net->parameters();
  for (size_t i = 0; i < trained.size(); ++i) CHECK(torch::allclose(trained[i].grad(), expected[i] * 0.25));
  CHECK(unused.grad().abs().sum().item<float>() == 0.0f);
  // An eager step after it launches from the hooks again.
  communicator.sizes.clear();
  net->zero_grad(true);
  reducer.begin_step(0.25);
  net->forward(input).pow(2).mean().backward();
  CHECK(communicator.sizes.size() == 2);  // launched during backward; the unused one's waits for finalize
  reducer.finalize();
  CHECK(communicator.sizes.size() == 3);
}
