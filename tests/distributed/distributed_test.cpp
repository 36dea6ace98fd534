// Torch-free parts of data-parallel training: launch environments, the
// sharded sampler, the heartbeat and the supervisor's helpers.
#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <numeric>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "distributed/backend_choice.h"
#include "distributed/heartbeat.h"
#include "distributed/launch_env.h"
#include "distributed/supervisor.h"
#include "feed/sampler.h"
#include "test_paths.h"
#include "util/error.h"

using namespace trainer;

namespace {

EnvLookup env_of(std::map<std::string, std::string> vars) {
  auto shared = std::make_shared<std::map<std::string, std::string>>(std::move(vars));
  return [shared](const char* name) -> const char* {
    const auto found = shared->find(name);
    return found == shared->end() ? nullptr : found->second.c_str();
  };
}

// The rendezvous store in memory, shared by the "ranks" of one test.
class MemoryStore : public KeyValueStore {
 public:
  struct Shared {
    std::mutex mutex;
    std::map<std::string, std::string> values;
    bool down = false;
  };
  explicit MemoryStore(std::shared_ptr<Shared> shared) : shared_(std::move(shared)) {}
  void set(const std::string& key, const std::string& value) override {
    std::lock_guard<std::mutex> lock(shared_->mutex);
    if (shared_->down) throw std::runtime_error("Connection refused");
    shared_->values[key] = value;
  }
  std::optional<std::string> get(const std::string& key) override {
    std::lock_guard<std::mutex> lock(shared_->mutex);
    if (shared_->down) throw std::runtime_error("Connection refused");
    const auto found = shared_->values.find(key);
    if (found == shared_->values.end()) return std::nullopt;
    return found->second;
  }

 private:
  std::shared_ptr<Shared> shared_;
};

// Polls check() until it throws; returns the message and the seconds it took.
std::pair<std::string, double> wait_for_failure(Heartbeat& heartbeat, double limit_seconds) {
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  while (elapsed() < limit_seconds) {
    try {
      heartbeat.check();
    } catch (const DistributedError& e) {
      return {e.what(), elapsed()};
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return {"", elapsed()};
}

}  // namespace

TEST_CASE("torchrun's environment describes a rank", "[dist][launch]") {
  const auto info = launch_from_environment(env_of({{"RANK", "3"}, {"WORLD_SIZE", "4"}, {"LOCAL_RANK", "1"},
                                                    {"LOCAL_WORLD_SIZE", "2"}, {"MASTER_ADDR", "node7"},
                                                    {"MASTER_PORT", "29501"}}));
  REQUIRE(info);
  CHECK(info->rank == 3);
  CHECK(info->world_size == 4);
  CHECK(info->local_rank == 1);
  CHECK(info->local_world_size == 2);
  CHECK(info->master_addr == "node7");
  CHECK(info->master_port == 29501);
  CHECK(info->rank0_hosts_store);
  CHECK(info->source == "torchrun-style environment");
  CHECK(info->run_dir.empty());  // rank 0 makes the run directory

  SECTION("trainer's supervisor hands its ranks the run directory it made") {
    const auto supervised = launch_from_environment(env_of({{"RANK", "1"}, {"WORLD_SIZE", "2"}, {"MASTER_PORT", "1"},
                                                            {"TRAINER_SUPERVISED", "1"},
                                                            {kRunDirVariable, "runs/exp/20261123-101500"}}));
    REQUIRE(supervised);
    CHECK(supervised->source == "trainer supervisor");
    CHECK(supervised->run_dir == "runs/exp/20261123-101500");
  }
  SECTION("the launcher may host the store") {
    const auto agent = launch_from_environment(env_of({{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"MASTER_PORT", "1"},
                                                       {"TORCHELASTIC_USE_AGENT_STORE", "True"}}));
    REQUIRE(agent);
    CHECK_FALSE(agent->rank0_hosts_store);
  }
  SECTION("one rank is no distributed run") {
    CHECK_FALSE(launch_from_environment(env_of({{"RANK", "0"}, {"WORLD_SIZE", "1"}, {"MASTER_PORT", "1"}})));
    CHECK_FALSE(launch_from_environment(env_of({})));
  }
  SECTION("malformed or inconsistent variables are named") {
    CHECK_THROWS_WITH(launch_from_environment(env_of({{"RANK", "2"}, {"WORLD_SIZE", "2"}, {"MASTER_PORT", "1"}})),
                      Catch::Contains("RANK=2 is not below WORLD_SIZE=2"));
    CHECK_THROWS_WITH(launch_from_environment(env_of({{"RANK", "x"}, {"WORLD_SIZE", "2"}, {"MASTER_PORT", "1"}})),
                      Catch::Contains("RANK='x' is not an integer"));
    CHECK_THROWS_WITH(launch_from_environment(env_of({{"RANK", "0"}, {"WORLD_SIZE", "2"}})),
                      Catch::Contains("lacks MASTER_PORT"));
    CHECK_THROWS_AS(launch_from_environment(env_of({{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"MASTER_PORT", "70000"}})),
                    UsageError);
  }
}

TEST_CASE("SLURM's environment describes a rank", "[dist][launch]") {
  const auto info = launch_from_environment(env_of({{"SLURM_PROCID", "5"}, {"SLURM_NTASKS", "8"},
                                                    {"SLURM_LOCALID", "1"}, {"SLURM_NTASKS_PER_NODE", "4(x2)"},
                                                    {"SLURM_JOB_NODELIST", "gpu[07-08]"}}));
  REQUIRE(info);
  CHECK(info->rank == 5);
  CHECK(info->world_size == 8);
  CHECK(info->local_rank == 1);
  CHECK(info->local_world_size == 4);
  CHECK(info->master_addr == "gpu07");
  CHECK(info->master_port == 29500);
  CHECK(info->source == "SLURM");
  CHECK(info->rank_is_slurm_task);
  SECTION("torchrun's variables win (a launcher inside an allocation)") {
    const auto inner = launch_from_environment(env_of({{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "8"},
                                                       {"SLURM_JOB_NODELIST", "a"}, {"RANK", "1"},
                                                       {"WORLD_SIZE", "2"}, {"MASTER_PORT", "9"}}));
    REQUIRE(inner);
    CHECK(inner->world_size == 2);
    CHECK_FALSE(inner->rank_is_slurm_task);
  }
  SECTION("a one-task allocation leaves launching to trainer") {
    CHECK_FALSE(launch_from_environment(env_of({{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "1"}})));
  }
}

TEST_CASE("the first host of a SLURM node list", "[dist][launch]") {
  CHECK(first_slurm_host("node01") == "node01");
  CHECK(first_slurm_host("node01,node02") == "node01");
  CHECK(first_slurm_host("node[03-05,9],gpu1") == "node03");
  CHECK(first_slurm_host("n[7,9]") == "n7");
  CHECK_THROWS_AS(first_slurm_host("node[03-05"), UsageError);
  CHECK(parse_host_port("10.0.0.1:29500", "--master") == std::make_pair(std::string("10.0.0.1"), 29500));
  CHECK_THROWS_WITH(parse_host_port("10.0.0.1", "--master"), Catch::Contains("is not HOST:PORT"));
  CHECK_THROWS_AS(parse_host_port("host:0", "--master"), UsageError);
}

TEST_CASE("shards split a count evenly and cover it once", "[dist][sampler]") {
  for (int world : {1, 2, 3, 7}) {
    for (int64_t count : {0, 1, 2, 6, 10, 101}) {
      int64_t next = 0;
      for (int rank = 0; rank < world; ++rank) {
        const Shard shard = shard_of(count, rank, world);
        CHECK(shard.begin == next);
        CHECK(shard.size >= count / world);
        CHECK(shard.size <= count / world + 1);
        next += shard.size;
      }
      CHECK(next == count);
    }
  }
}

TEST_CASE("every rank gets the same number of steps and together every sample once", "[dist][sampler]") {
  const auto order = epoch_order(103, 7, 2, true);
  for (int world : {1, 2, 3, 4}) {
    std::vector<int64_t> seen;
    std::vector<RankBatches> ranks;
    for (int rank = 0; rank < world; ++rank) ranks.push_back(rank_batches(order, 8, rank, world, 0));
    const size_t steps = (103 + 8 * world - 1) / (8 * world);
    for (int rank = 0; rank < world; ++rank) {
      CHECK(ranks[rank].batch_sizes.size() == steps);
      CHECK(ranks[rank].global_sizes == ranks[0].global_sizes);
      seen.insert(seen.end(), ranks[rank].order.begin(), ranks[rank].order.end());
    }
    std::sort(seen.begin(), seen.end());
    std::vector<int64_t> all(103);
    std::iota(all.begin(), all.end(), 0);
    CHECK(seen == all);
    // Step k's global batch is order[k*W*b, (k+1)*W*b), as one process with batch W*b.
    std::vector<int64_t> first_step;
    for (int rank = 0; rank < world; ++rank)
      first_step.insert(first_step.end(), ranks[rank].order.begin(), ranks[rank].order.begin() + ranks[rank].batch_sizes[0]);
    CHECK(first_step == std::vector<int64_t>(order.begin(), order.begin() + 8 * world));
  }
  SECTION("more ranks than samples in the last step: some ranks get an empty batch") {
    const auto small = epoch_order(2, 1, 1, false);
    const auto third = rank_batches(small, 4, 2, 3, 0);
    CHECK(third.batch_sizes == std::vector<int64_t>{0});
    CHECK(third.global_sizes == std::vector<int64_t>{2});
    CHECK(rank_batches(small, 4, 0, 3, 0).batch_sizes == std::vector<int64_t>{1});
  }
  SECTION("steps_per_epoch caps every rank alike") {
    CHECK(rank_batches(order, 8, 1, 2, 3).batch_sizes.size() == 3);
  }
}

TEST_CASE("a silent rank is named, with the phase it was last seen in", "[dist][heartbeat]") {
  auto shared = std::make_shared<MemoryStore::Shared>();
  Heartbeat watcher(std::make_unique<MemoryStore>(shared), 0, 2, 0.5);
  auto silent = std::make_unique<Heartbeat>(std::make_unique<MemoryStore>(shared), 1, 2, 0.5);
  silent->set_phase(Phase::kAllReduce, 3, 17);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  silent->stop();  // as a stopped process: no more beats
  const auto [message, seconds] = wait_for_failure(watcher, 5.0);
  CHECK_THAT(message, Catch::Contains("rank 1 stopped responding") &&
                          Catch::Contains("last seen in all-reduce (epoch 3, step 17)"));
  CHECK(seconds < 2.0);
}

TEST_CASE("a failing rank is named at once, with its reason", "[dist][heartbeat]") {
  auto shared = std::make_shared<MemoryStore::Shared>();
  Heartbeat watcher(std::make_unique<MemoryStore>(shared), 1, 2, 30.0);
  Heartbeat failing(std::make_unique<MemoryStore>(shared), 0, 2, 30.0);
  failing.mark_failed("cannot write checkpoint");
  const auto [message, seconds] = wait_for_failure(watcher, 10.0);
  CHECK_THAT(message, Catch::Contains("rank 0 failed: cannot write checkpoint"));
  CHECK(seconds < 3.0);
}

TEST_CASE("losing the store means rank 0 is gone", "[dist][heartbeat]") {
  auto shared = std::make_shared<MemoryStore::Shared>();
  Heartbeat watcher(std::make_unique<MemoryStore>(shared), 1, 2, 0.5);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  {
    std::lock_guard<std::mutex> lock(shared->mutex);
    shared->down = true;
  }
  const auto [message, seconds] = wait_for_failure(watcher, 5.0);
  CHECK_THAT(message, Catch::Contains("lost the rendezvous store") && Catch::Contains("rank 0 is gone"));
}

TEST_CASE("ranks that finish in order raise no alarm", "[dist][heartbeat]") {
  auto shared = std::make_shared<MemoryStore::Shared>();
  Heartbeat watcher(std::make_unique<MemoryStore>(shared), 0, 2, 0.3);
  Heartbeat done(std::make_unique<MemoryStore>(shared), 1, 2, 0.3);
  done.set_phase(Phase::kFinishing);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  done.stop();
  const auto [message, seconds] = wait_for_failure(watcher, 1.5);
  CHECK(message.empty());
}

TEST_CASE("the supervisor's helpers", "[dist][supervisor]") {
  const int port = find_free_port();
  CHECK(port > 0);
  CHECK(port < 65536);
  const std::string dir = testing::fresh_dir("last-lines");
  std::ofstream(dir + "/log") << "one\ntwo\nthree\nfour\n";
  CHECK(last_lines(dir + "/log", 2) == "three\nfour");
  CHECK(last_lines(dir + "/log", 10) == "one\ntwo\nthree\nfour");
  CHECK(last_lines(dir + "/missing", 3).empty());
}

TEST_CASE("GPUs get NCCL unless one GPU serves several ranks", "[dist][backend]") {
  CHECK(choose_backend({"cpu"}, 0, 4, true).cuda_device == -1);
  CHECK(choose_backend({"cpu", "cpu"}, 1, 2, true).note.empty());
  CHECK(choose_backend({"gpu:0", "gpu:1"}, 1, 2, true).cuda_device == 1);
  CHECK(choose_backend({"gpu:2", "gpu:3"}, 0, 2, true).cuda_device == 2);
  // One GPU per node, a rank per node (torchrun over several machines).
  CHECK(choose_backend({"gpu:0"}, 0, 1, true).cuda_device == 0);
  CHECK(choose_backend({"gpu:0"}, 0, 2, true).cuda_device == -1);
  const auto logical = choose_backend({"gpu:0", "gpu:0"}, 1, 2, true);
  CHECK(logical.cuda_device == -1);
  CHECK_THAT(logical.note, Catch::Contains("gpu:0 is shared by several ranks") && Catch::Contains("Gloo"));
  const auto no_nccl = choose_backend({"gpu:0", "gpu:1"}, 0, 2, false);
  CHECK(no_nccl.cuda_device == -1);
  CHECK_THAT(no_nccl.note, Catch::Contains("no NCCL"));
}
