// The only file that includes c10d headers: distribution stays behind the
// Communicator interface, and c10d's API changes touch one file.
#include "distributed/c10d_communicator.h"

#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#ifdef USE_C10D_NCCL
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#endif

#include <chrono>
#include <cstdlib>
#include <thread>

#include "util/error.h"
#include "util/torch_compat.h"

namespace trainer {
namespace {

std::chrono::milliseconds to_ms(double seconds) {
  return std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000.0));
}

std::string what_of(const std::exception& e) {
  if (const auto* torch_error = dynamic_cast<const c10::Error*>(&e)) return torch_error->what_without_backtrace();
  return e.what();
}

c10::intrusive_ptr<c10d::TCPStore> open_tcp_store(const LaunchInfo& launch, bool server, double timeout_seconds) {
  c10d::TCPStoreOptions options;
  options.port = static_cast<uint16_t>(launch.master_port);
  options.isServer = server;
  options.numWorkers = static_cast<size_t>(launch.world_size);
  options.waitWorkers = false;  // the preflight all-reduce checks that everyone came
  options.timeout = to_ms(timeout_seconds);
  compat::use_classic_tcp_store(options);
  const std::string where = launch.master_addr + ":" + std::to_string(launch.master_port);
  try {
    return c10::make_intrusive<c10d::TCPStore>(launch.master_addr, options);
  } catch (const std::exception& e) {
    if (server)
      throw DistributedError("rank 0 cannot serve the rendezvous store on port " +
                                 std::to_string(launch.master_port) + ": " + what_of(e),
                             "the port is probably in use: pick another with MASTER_PORT or --master HOST:PORT");
    throw DistributedError("rank " + std::to_string(launch.rank) + " cannot reach the rendezvous store at " + where +
                               ": " + what_of(e),
                           "check that rank 0 is running and that --master / MASTER_ADDR:MASTER_PORT is right");
  }
}

class StoreConnection : public KeyValueStore {
 public:
  explicit StoreConnection(c10::intrusive_ptr<c10d::Store> store) : store_(std::move(store)) {}
  void set(const std::string& key, const std::string& value) override {
    store_->set(key, std::vector<uint8_t>(value.begin(), value.end()));
  }
  std::optional<std::string> get(const std::string& key) override {
    if (!store_->check({key})) return std::nullopt;
    const auto bytes = store_->get(key);
    return std::string(bytes.begin(), bytes.end());
  }

 private:
  c10::intrusive_ptr<c10d::Store> store_;
};

class C10dCollective : public PendingCollective {
 public:
  C10dCollective(c10::intrusive_ptr<c10d::Work> work, std::string what, std::function<std::string()> explain)
      : work_(std::move(work)), what_(std::move(what)), explain_(std::move(explain)) {}
  void wait() override {
    try {
      work_->wait();
    } catch (const std::exception& e) {
      const std::string why = explain_();
      throw DistributedError(what_ + " failed: " + what_of(e) + (why.empty() ? "" : "\n" + why),
                             "see the worklog.N files in the run directory for every rank's last steps");
    }
  }

 private:
  c10::intrusive_ptr<c10d::Work> work_;
  std::string what_;
  std::function<std::string()> explain_;
};

c10d::ReduceOp to_c10d(ReduceOp op) {
  switch (op) {
    case ReduceOp::kMax: return c10d::ReduceOp::MAX;
    case ReduceOp::kMin: return c10d::ReduceOp::MIN;
    default: return c10d::ReduceOp::SUM;
  }
}

std::shared_ptr<::gloo::transport::Device> gloo_device(const LaunchInfo& launch) {
  // As torch.distributed: GLOO_SOCKET_IFNAME picks the interface; loopback
  // runs stay on loopback; otherwise the address this host's name resolves to.
  if (const char* interface = std::getenv("GLOO_SOCKET_IFNAME"); interface != nullptr && *interface != '\0')
    return c10d::ProcessGroupGloo::createDeviceForInterface(interface);
  const std::string& master = launch.master_addr;
  if (master == "localhost" || master.rfind("127.", 0) == 0 || master == "::1")
    return c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1");
  return c10d::ProcessGroupGloo::createDefaultDevice();
}

class C10dCommunicator : public Communicator {
 public:
  C10dCommunicator(const LaunchInfo& launch, const ConnectOptions& options)
      : launch_(launch), collective_timeout_(to_ms(options.collective_timeout_seconds)) {
    const bool server = launch.rank == 0 && launch.rank0_hosts_store;
    store_ = open_tcp_store(launch, server, options.connect_timeout_seconds);
    check_world_size();
    wait_for_everyone(options.connect_timeout_seconds);
    // Gloo applies this one time-out to connecting and to every collective
    // (the per-call time-outs are not used by its collectives).
    auto gloo_options = c10d::ProcessGroupGloo::Options::create(collective_timeout_);
    gloo_options->devices.push_back(gloo_device(launch));
    gloo_options->threads = 2;
    try {
      gloo_ = c10::make_intrusive<c10d::ProcessGroupGloo>(c10::make_intrusive<c10d::PrefixStore>("gloo", store_),
                                                          launch.rank, launch.world_size, gloo_options);
    } catch (const std::exception& e) {
      throw connect_failed("Gloo", options, e);
    }
    preflight(torch::ones({1}));
    if (options.nccl_device >= 0) connect_nccl(options);
  }

  int rank() const override { return launch_.rank; }
  int world_size() const override { return launch_.world_size; }
  std::string describe() const override {
    return std::string(has_nccl() ? "gloo + nccl" : "gloo") + ", " + std::to_string(launch_.world_size) + " ranks, store " + launch_.master_addr + ":" +
           std::to_string(launch_.master_port) + " (" + launch_.source + ")";
  }

  std::unique_ptr<PendingCollective> all_reduce_async(torch::Tensor tensor, ReduceOp op) override {
    std::vector<at::Tensor> tensors{std::move(tensor)};
    c10d::AllreduceOptions options;
    options.reduceOp = to_c10d(op);
    options.timeout = collective_timeout_;
    return wrap(on_group(tensors[0], [&](auto& group) { return group.allreduce(tensors, options); }), "all-reduce");
  }

  void broadcast(std::vector<torch::Tensor> tensors, int root) override {
    std::vector<std::unique_ptr<PendingCollective>> pending;
    for (auto& tensor : tensors) {
      // Parameters require grad; Gloo copies a CUDA result back with copy_,
      // which autograd refuses on such a leaf. The detached tensor shares the
      // storage, so the parameter still receives rank 0's values.
      std::vector<at::Tensor> one{tensor.detach()};
      c10d::BroadcastOptions options;
      options.rootRank = root;
      options.timeout = collective_timeout_;
      pending.push_back(wrap(on_group(tensor, [&](auto& group) { return group.broadcast(one, options); }),
                             "broadcast from rank " + std::to_string(root)));
    }
    for (auto& work : pending) work->wait();
  }

  void barrier() override {
    c10d::BarrierOptions options;
    options.timeout = collective_timeout_;
    wrap(gloo_->barrier(options), "barrier")->wait();
  }

  std::string share_from_rank0(const std::string& key, const std::string& value) override {
    const std::string full_key = "trainer/shared/" + key;
    StoreConnection store(store_);
    if (launch_.rank == 0) store.set(full_key, value);
    try {
      store_->wait({full_key}, collective_timeout_);
    } catch (const std::exception& e) {
      const std::string why = explain_failure();
      throw DistributedError("waiting for rank 0's " + key + " failed: " + what_of(e) + (why.empty() ? "" : "\n" + why));
    }
    return store.get(full_key).value_or("");
  }

  std::unique_ptr<KeyValueStore> open_store() override {
    return std::make_unique<StoreConnection>(open_tcp_store(launch_, /*server=*/false, 10.0));
  }

 private:
  std::unique_ptr<PendingCollective> wrap(c10::intrusive_ptr<c10d::Work> work, std::string what) {
    return std::make_unique<C10dCollective>(std::move(work), std::move(what), [this] { return explain_failure(); });
  }

  // A rank started with another WORLD_SIZE, or twice with one rank, would
  // otherwise leave the others waiting for peers that never come; it says
  // why under trainer/abort, which everyone waiting reads.
  void check_world_size() {
    StoreConnection store(store_);
    const std::string key = "trainer/world_size";
    if (launch_.rank == 0) store.set(key, std::to_string(launch_.world_size));
    try {
      store_->wait({key});
    } catch (const std::exception& e) {
      throw DistributedError("rank " + std::to_string(launch_.rank) + " waited in vain for rank 0 at " +
                             launch_.master_addr + ":" + std::to_string(launch_.master_port) + ": " + what_of(e));
    }
    const std::string theirs = store.get(key).value_or("?");
    if (theirs != std::to_string(launch_.world_size))
      refuse("rank " + std::to_string(launch_.rank) + " was started for " + std::to_string(launch_.world_size) +
                 " ranks, rank 0 for " + theirs,
             "start every rank with the same WORLD_SIZE (or --nnodes and device list)");
    const int64_t claims = store_->add("trainer/rank_claims/" + std::to_string(launch_.rank), 1);
    if (claims > 1)
      refuse("two processes were started as rank " + std::to_string(launch_.rank),
             "give every process its own RANK (or --node-rank)");
  }

  [[noreturn]] void refuse(const std::string& message, const std::string& hint) {
    StoreConnection(store_).set("trainer/abort", message);
    throw DistributedError(message, hint);
  }

  // Until every rank has checked in, or one refused, or connect_timeout
  // passed: then the missing ranks are named.
  void wait_for_everyone(double timeout_seconds) {
    StoreConnection store(store_);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_seconds);
    while (true) {
      if (const auto abort = store.get("trainer/abort"))
        throw DistributedError("rank " + std::to_string(launch_.rank) + " stops: another rank refused to join: " +
                               *abort);
      std::string missing;
      for (int r = 0; r < launch_.world_size; ++r)
        if (!store_->check({"trainer/rank_claims/" + std::to_string(r)}))
          missing += (missing.empty() ? "" : ", ") + std::to_string(r);
      if (missing.empty()) return;
      if (std::chrono::steady_clock::now() > deadline)
        throw DistributedError("rank(s) " + missing + " did not join within " +
                                   std::to_string(static_cast<int>(timeout_seconds)) + " s (dist.connect_timeout)",
                               "check that every rank was started, with the same MASTER_ADDR:MASTER_PORT");
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }

  // A first all-reduce, so that a broken transport fails here, before any
  // data is loaded.
  void preflight(torch::Tensor one) {
    const std::string backend = one.is_cuda() ? "NCCL" : "Gloo";
    try {
      all_reduce(one);
    } catch (const DistributedError& e) {
      throw DistributedError("preflight " + backend + " all-reduce: " + e.what());
    }
    if (one.item<float>() != static_cast<float>(launch_.world_size))
      throw DistributedError("preflight " + backend + " all-reduce summed to " + std::to_string(one.item<float>()) +
                             ", expected " + std::to_string(launch_.world_size));
  }

  DistributedError connect_failed(const std::string& backend, const ConnectOptions& options, const std::exception& e) {
    return DistributedError("rank " + std::to_string(launch_.rank) + " could not connect its " + backend +
                            " group to the other " + std::to_string(launch_.world_size - 1) + " rank(s) within " +
                            std::to_string(static_cast<int>(options.connect_timeout_seconds)) +
                            " s (dist.connect_timeout): " + what_of(e));
  }

  // CPU tensors go through Gloo, CUDA tensors through NCCL when there is an
  // NCCL group: `collective` is called with the group.
  template <class Collective>
  c10::intrusive_ptr<c10d::Work> on_group(const torch::Tensor& tensor, Collective&& collective) {
#ifdef USE_C10D_NCCL
    if (tensor.is_cuda() && nccl_) return collective(*nccl_);
#else
    (void)tensor;
#endif
    return collective(*gloo_);
  }

#ifdef USE_C10D_NCCL
  bool has_nccl() const { return static_cast<bool>(nccl_); }
  void connect_nccl(const ConnectOptions& options) {
    auto nccl_options = c10d::ProcessGroupNCCL::Options::create();
    nccl_options->timeout = collective_timeout_;
    try {
      nccl_ = c10::make_intrusive<c10d::ProcessGroupNCCL>(c10::make_intrusive<c10d::PrefixStore>("nccl", store_),
                                                          launch_.rank, launch_.world_size, nccl_options);
    } catch (const std::exception& e) {
      throw connect_failed("NCCL", options, e);
    }
    preflight(torch::ones({1}, torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(options.nccl_device))));
  }
  c10::intrusive_ptr<c10d::ProcessGroupNCCL> nccl_;
#else
  bool has_nccl() const { return false; }
  [[noreturn]] void connect_nccl(const ConnectOptions&) {
    throw DistributedError("NCCL was asked for, but the LibTorch trainer was built against has no CUDA",
                           "build trainer against a CUDA LibTorch (docs/development.md, 'Building')");
  }
#endif

  LaunchInfo launch_;
  std::chrono::milliseconds collective_timeout_;
  c10::intrusive_ptr<c10d::TCPStore> store_;
  c10::intrusive_ptr<c10d::ProcessGroupGloo> gloo_;
};

}  // namespace

std::unique_ptr<Communicator> connect_c10d(const LaunchInfo& launch, const ConnectOptions& options) {
  return std::make_unique<C10dCommunicator>(launch, options);
}

bool nccl_compiled_in() {
#ifdef USE_C10D_NCCL
  return true;
#else
  return false;
#endif
}

}  // namespace trainer
