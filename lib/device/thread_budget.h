#pragma once
// How many intra-op threads a rank takes when cpu_threads is 0: what the
// machine, the scheduler, the batch system and the user allow, the smallest
// of them, and which one decided (for the log). Torch-free.
#include <string>
#include <vector>

namespace trainer {

struct ThreadLimits {
  int physical_cores = 1;  // of the machine (/proc/cpuinfo)
  int logical_cores = 1;
  int affinity_cpus = 0;   // logical CPUs of the process's affinity mask (taskset, cpusets); 0: unknown
  double cgroup_cpus = 0;  // the cgroup's CPU quota, in CPUs; 0: none
  std::string slurm_cpus_per_task;  // SLURM_CPUS_PER_TASK as set; empty: unset
  std::string omp_num_threads;      // OMP_NUM_THREADS as set; empty: unset
  int ranks_on_host = 1;   // the ranks sharing this host's mask and quota
  bool rank_is_slurm_task = false;  // srun started each rank as a task of its own
};

struct ThreadChoice {
  int threads = 1;
  std::string decided_by;             // e.g. "OMP_NUM_THREADS=1"
  std::vector<std::string> warnings;  // values that were set but not understood
};

// In this order: the affinity mask (its physical cores: hyper-threads share
// one core's vector units) and the cgroup quota, both split between the
// host's ranks; SLURM_CPUS_PER_TASK (split between the ranks of one task);
// OMP_NUM_THREADS (per process, as OpenMP reads it). The smallest wins; on a
// tie, the first of these. At least 1.
ThreadChoice choose_threads(const ThreadLimits& limits);

// The CPUs a cgroup v2 `cpu.max` ("200000 100000", or "max 100000") allows;
// 0 when unlimited or not understood.
double cpus_of_cpu_max(const std::string& text);

// This process's limits: /proc/cpuinfo, sched_getaffinity, the cgroup (v2
// cpu.max up the hierarchy, or v1 cfs quota) and the environment.
ThreadLimits read_thread_limits(int ranks_on_host, bool rank_is_slurm_task);

}  // namespace trainer
