#pragma once
// Who this process is in a data-parallel run: rank, world size and where the
// rendezvous store lives. Read from the environment an external launcher
// sets (torchrun's, SLURM's; our own supervisor sets torchrun's), so every
// launch path ends in the same place.
#include <functional>
#include <optional>
#include <string>

namespace trainer {

struct LaunchInfo {
  int rank = 0;
  int world_size = 1;
  int local_rank = 0;
  int local_world_size = 1;
  std::string master_addr = "127.0.0.1";
  int master_port = 0;
  // Rank 0 hosts the c10d store unless a launcher hosts it (torchrun's
  // TORCHELASTIC_USE_AGENT_STORE).
  bool rank0_hosts_store = true;
  std::string source = "single process";  // for the log header
  // SLURM's tasks: each rank is a task with its own CPU allocation
  // (SLURM_CPUS_PER_TASK is per rank, not per host).
  bool rank_is_slurm_task = false;
  // The run directory a supervisor made before starting the ranks
  // (kRunDirVariable); empty: rank 0 makes it.
  std::string run_dir;
  bool distributed() const { return world_size > 1; }
};

// How the supervisor hands its run directory to the ranks it starts.
inline constexpr const char* kRunDirVariable = "TRAINER_RUN_DIR";

using EnvLookup = std::function<const char*(const char*)>;

// The launch described by the environment: torchrun's variables (RANK,
// WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT) first,
// then SLURM's (SLURM_PROCID, SLURM_NTASKS, SLURM_LOCALID,
// SLURM_NTASKS_PER_NODE, the first host of SLURM_JOB_NODELIST; MASTER_PORT or
// 29500). Nothing when neither describes more than one rank. Throws
// UsageError naming the variable when one is malformed or inconsistent.
std::optional<LaunchInfo> launch_from_environment(const EnvLookup& env);

// The first host of a SLURM node list: "node[03-05,9],gpu1" -> "node03".
std::string first_slurm_host(const std::string& nodelist);

// "host:port" from --master; throws UsageError.
std::pair<std::string, int> parse_host_port(const std::string& text, const std::string& what);

}  // namespace trainer
