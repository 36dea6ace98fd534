// The simplest LibTorch C++ training loop anyone could write for the two
// reference experiments: the yardstick trainer's epoch time is measured
// against (scripts/bench/epoch_bench.sh builds and runs it; it is not part
// of trainer). Same models, optimizers, batch sizes and data as
// scripts/bench/pytorch_reference.py, which writes the data this reads.
//
// Usage: minimal_loop fashion|reuters DATA_DIR THREADS EPOCHS
//   DATA_DIR holds x.bin, y.bin and shape.txt from
//   `pytorch_reference.py dump fashion|reuters DATA_DIR [CORPUS]`.
// Prints one line per epoch: epoch, train seconds, samples/s, loss.
#include <torch/torch.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

namespace {

torch::Tensor read_raw(const std::string& path, std::vector<int64_t> shape, torch::Dtype dtype) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path);
  auto tensor = torch::empty(shape, dtype);
  in.read(static_cast<char*>(tensor.data_ptr()), static_cast<std::streamsize>(tensor.nbytes()));
  if (!in) throw std::runtime_error(path + " is shorter than its shape says");
  return tensor;
}

struct FashionNet : torch::nn::Module {
  torch::nn::Conv2d conv1{torch::nn::Conv2dOptions(1, 20, 5).padding(2)};
  torch::nn::Conv2d conv2{torch::nn::Conv2dOptions(20, 20, 5).padding(2)};
  torch::nn::Linear dense{980, 10};
  FashionNet() {
    register_module("conv1", conv1);
    register_module("conv2", conv2);
    register_module("dense", dense);
  }
  torch::Tensor forward(torch::Tensor x) {
    x = torch::max_pool2d(torch::relu(conv1(x)), 2);
    x = torch::max_pool2d(torch::relu(conv2(x)), 2);
    return dense(x.flatten(1));
  }
};

struct ReutersNet : torch::nn::Module {
  torch::nn::Embedding embedding;
  torch::nn::Conv1d conv1{torch::nn::Conv1dOptions(7, 64, 5)};
  torch::nn::Conv1d conv2{torch::nn::Conv1dOptions(64, 32, 3)};
  torch::nn::Linear dense{73 * 32, 46};
  explicit ReutersNet(int64_t vocabulary) : embedding(vocabulary, 7) {
    register_module("embedding", embedding);
    register_module("conv1", conv1);
    register_module("conv2", conv2);
    register_module("dense", dense);
  }
  torch::Tensor forward(torch::Tensor tokens) {
    auto x = embedding(tokens).transpose(1, 2);
    x = torch::max_pool1d(torch::relu(conv1(x)), 2);
    x = torch::max_pool1d(torch::relu(conv2(x)), 2);
    return dense(x.flatten(1));
  }
};

// torch.optim.NAdam's per-tensor update (PyTorch >= 2.0's bias correction),
// written out as a user would: LibTorch's C++ API has no NAdam.
struct NAdam {
  std::vector<torch::Tensor> params, exp_avg, exp_avg_sq;
  double lr, beta1 = 0.9, beta2 = 0.999, eps = 1e-7, momentum_decay = 0.004, mu_product = 1.0;
  int64_t step_count = 0;
  NAdam(std::vector<torch::Tensor> p, double learning_rate) : params(std::move(p)), lr(learning_rate) {
    for (auto& param : params) {
      exp_avg.push_back(torch::zeros_like(param));
      exp_avg_sq.push_back(torch::zeros_like(param));
    }
  }
  void zero_grad() {
    for (auto& param : params)
      if (param.grad().defined()) param.mutable_grad().zero_();
  }
  void step() {
    torch::NoGradGuard no_grad;
    ++step_count;
    const double t = static_cast<double>(step_count);
    const double mu = beta1 * (1.0 - 0.5 * std::pow(0.96, t * momentum_decay));
    const double mu_next = beta1 * (1.0 - 0.5 * std::pow(0.96, (t + 1) * momentum_decay));
    mu_product *= mu;
    const double bias_correction2 = 1.0 - std::pow(beta2, t);
    for (size_t i = 0; i < params.size(); ++i) {
      const auto& grad = params[i].grad();
      exp_avg[i].mul_(beta1).add_(grad, 1.0 - beta1);
      exp_avg_sq[i].mul_(beta2).addcmul_(grad, grad, 1.0 - beta2);
      auto denom = exp_avg_sq[i].div(bias_correction2).sqrt_().add_(eps);
      params[i].addcdiv_(grad, denom, -lr * (1.0 - mu) / (1.0 - mu_product));
      params[i].addcdiv_(exp_avg[i], denom, -lr * mu_next / (1.0 - mu_product * mu_next));
    }
  }
};

template <typename Net, typename Optimizer>
void train(Net& net, Optimizer& optimizer, const torch::Tensor& x, const torch::Tensor& y, int64_t batch,
           int epochs) {
  const int64_t n = x.size(0);
  for (int epoch = 1; epoch <= epochs; ++epoch) {
    net.train();
    const auto order = torch::randperm(n, torch::kLong);
    const auto start = std::chrono::steady_clock::now();
    double total = 0.0;
    for (int64_t first = 0; first < n; first += batch) {
      const auto rows = order.slice(0, first, std::min(first + batch, n));
      const auto inputs = x.index_select(0, rows), labels = y.index_select(0, rows);
      optimizer.zero_grad();
      torch::Tensor loss = torch::nn::functional::cross_entropy(net.forward(inputs), labels);
      loss.backward();
      optimizer.step();
      total += loss.item<double>() * static_cast<double>(rows.size(0));
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("%d %.3f %.1f %.6f\n", epoch, seconds, static_cast<double>(n) / seconds, total / static_cast<double>(n));
    std::fflush(stdout);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::cerr << "usage: minimal_loop fashion|reuters DATA_DIR THREADS EPOCHS\n";
    return 2;
  }
  const std::string which = argv[1], dir = argv[2];
  torch::set_num_threads(std::stoi(argv[3]));
  const int epochs = std::stoi(argv[4]);
  torch::manual_seed(0);
  std::ifstream shape_file(dir + "/shape.txt");
  std::vector<int64_t> shape;
  for (int64_t d; shape_file >> d;) shape.push_back(d);
  if (shape.empty()) {
    std::cerr << dir << "/shape.txt: no shape\n";
    return 2;
  }
  const auto y = read_raw(dir + "/y.bin", {shape[0]}, torch::kLong);
  if (which == "fashion") {
    const auto x = read_raw(dir + "/x.bin", shape, torch::kFloat);
    FashionNet net;
    torch::optim::SGD optimizer(net.parameters(), torch::optim::SGDOptions(0.01));
    train(net, optimizer, x, y, 100, epochs);
  } else {
    const auto x = read_raw(dir + "/x.bin", shape, torch::kLong);
    ReutersNet net(x.max().item<int64_t>() + 1);
    NAdam optimizer(net.parameters(), 0.001);
    train(net, optimizer, x, y, 32, epochs);
  }
  return 0;
}
