#include "device/thread_budget.h"

#include <sched.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "device/cpu_info.h"
#include "util/read_file.h"

namespace trainer {
namespace {

struct Candidate {
  int threads;
  std::string decided_by;
};

// A positive count from an environment variable; OMP_NUM_THREADS may be a
// list for nested levels ("4,2"), of which the first is ours.
bool parse_count(const std::string& text, int& count) {
  const std::string first = text.substr(0, text.find(','));
  if (first.empty() || first.size() > 6 || first.find_first_not_of("0123456789 ") != std::string::npos) return false;
  count = std::atoi(first.c_str());
  return count > 0;
}

int split(int cpus, int ranks) { return std::max(1, cpus / std::max(1, ranks)); }

std::string per_rank_note(int ranks) {
  return ranks > 1 ? ", split between " + std::to_string(ranks) + " ranks" : "";
}

// cgroup v2: the smallest cpu.max from this process's cgroup up to the root.
double cgroup_v2_cpus(const std::string& relative) {
  double smallest = 0;
  for (std::string path = relative;; path = path.substr(0, path.find_last_of('/'))) {
    const double cpus = cpus_of_cpu_max(read_text_file("/sys/fs/cgroup" + path + "/cpu.max").value_or(""));
    if (cpus > 0 && (smallest == 0 || cpus < smallest)) smallest = cpus;
    if (path.empty() || path == "/") break;
  }
  return smallest;
}

double cgroup_v1_cpus() {
  const std::string quota = read_text_file("/sys/fs/cgroup/cpu/cpu.cfs_quota_us").value_or("");
  const std::string period = read_text_file("/sys/fs/cgroup/cpu/cpu.cfs_period_us").value_or("");
  const double q = std::atof(quota.c_str()), p = std::atof(period.c_str());
  return q > 0 && p > 0 ? q / p : 0;
}

double cgroup_cpus() {
  // "0::/user.slice/job.scope" is the v2 hierarchy's line.
  std::istringstream lines(read_text_file("/proc/self/cgroup").value_or(""));
  for (std::string line; std::getline(lines, line);)
    if (line.rfind("0::", 0) == 0) return cgroup_v2_cpus(line.substr(3));
  return cgroup_v1_cpus();
}

std::string env_text(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

}  // namespace

double cpus_of_cpu_max(const std::string& text) {
  std::istringstream in(text);
  std::string quota;
  double period = 0;
  if (!(in >> quota >> period) || quota == "max" || period <= 0) return 0;
  char* end = nullptr;
  const double q = std::strtod(quota.c_str(), &end);
  return end && *end == '\0' && q > 0 ? q / period : 0;
}

ThreadChoice choose_threads(const ThreadLimits& limits) {
  ThreadChoice choice;
  std::vector<Candidate> candidates;
  const int cores = std::max(1, limits.physical_cores);
  const int per_core = std::max(1, limits.logical_cores / cores);
  if (limits.affinity_cpus > 0 && limits.affinity_cpus < limits.logical_cores) {
    const int usable = std::min(cores, std::max(1, limits.affinity_cpus / per_core));
    candidates.push_back({split(usable, limits.ranks_on_host),
                          "the CPU affinity mask (" + std::to_string(limits.affinity_cpus) + " logical CPUs, " +
                              std::to_string(usable) + " physical cores" + per_rank_note(limits.ranks_on_host) + ")"});
  } else {
    candidates.push_back({split(cores, limits.ranks_on_host), "the machine's " + std::to_string(cores) +
                                                                  " physical cores" +
                                                                  per_rank_note(limits.ranks_on_host)});
  }
  if (limits.cgroup_cpus > 0) {
    // A quota of 1.5 CPUs keeps 1 thread busy without being throttled.
    const int cpus = std::max(1, static_cast<int>(std::floor(limits.cgroup_cpus + 1e-9)));
    char quota[32];
    std::snprintf(quota, sizeof quota, "%g", limits.cgroup_cpus);
    candidates.push_back({split(cpus, limits.ranks_on_host),
                          std::string("the cgroup CPU quota (") + quota + " CPUs" +
                              per_rank_note(limits.ranks_on_host) + ")"});
  }
  if (!limits.slurm_cpus_per_task.empty()) {
    int cpus = 0;
    const int ranks = limits.rank_is_slurm_task ? 1 : limits.ranks_on_host;
    if (parse_count(limits.slurm_cpus_per_task, cpus))
      candidates.push_back({split(cpus, ranks), "SLURM_CPUS_PER_TASK=" + limits.slurm_cpus_per_task +
                                                    per_rank_note(ranks)});
    else
      choice.warnings.push_back("SLURM_CPUS_PER_TASK='" + limits.slurm_cpus_per_task +
                                "' is not a positive count; ignored");
  }
  if (!limits.omp_num_threads.empty()) {
    int threads = 0;
    if (parse_count(limits.omp_num_threads, threads))
      candidates.push_back({threads, "OMP_NUM_THREADS=" + limits.omp_num_threads});
    else
      choice.warnings.push_back("OMP_NUM_THREADS='" + limits.omp_num_threads + "' is not a positive count; ignored");
  }
  const auto smallest = std::min_element(candidates.begin(), candidates.end(),
                                         [](const Candidate& a, const Candidate& b) { return a.threads < b.threads; });
  choice.threads = smallest->threads;
  choice.decided_by = smallest->decided_by;
  return choice;
}

ThreadLimits read_thread_limits(int ranks_on_host, bool rank_is_slurm_task) {
  const CpuInfo cpu = read_cpu_info();
  ThreadLimits limits;
  limits.physical_cores = cpu.physical_cores;
  limits.logical_cores = cpu.logical_cores;
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  limits.affinity_cpus = sched_getaffinity(0, sizeof allowed, &allowed) == 0 ? CPU_COUNT(&allowed) : 0;
  limits.cgroup_cpus = cgroup_cpus();
  limits.slurm_cpus_per_task = env_text("SLURM_CPUS_PER_TASK");
  limits.omp_num_threads = env_text("OMP_NUM_THREADS");
  limits.ranks_on_host = ranks_on_host;
  limits.rank_is_slurm_task = rank_is_slurm_task;
  return limits;
}

}  // namespace trainer
