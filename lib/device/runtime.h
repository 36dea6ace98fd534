#pragma once
// How a process computes, set once before any other torch work: intra-op
// threads, BLAS threads, the current GPU and the memory budget; and what an
// out-of-memory message suggests.
#include <torch/torch.h>

#include <string>
#include <vector>

#include "device/blas.h"
#include "spec/experiment_config.h"

namespace trainer {

struct RuntimeInfo {
  int threads = 1;
  std::string threads_decided_by;     // "cpu_threads", "OMP_NUM_THREADS=1", ... (thread_budget.h)
  std::vector<std::string> warnings;  // for the caller to log
  BlasInfo blas;
  std::string memory_budget;  // the budget's log line; empty: none to state
};

// Intra-op threads from cpu_threads, or when 0 from what the machine, the
// scheduler, SLURM and OMP_NUM_THREADS allow (choose_threads: shared between
// the `ranks_on_this_host`, or per rank where srun made each a task), BLAS
// pinned to one thread under them, `device` made current (a GPU) and given
// memory_limit; the precision asked for checked against what this LibTorch
// can do on `device`. Must run before any other torch work.
RuntimeInfo configure_runtime(const ExperimentConfig& config, const torch::Device& device,
                              int ranks_on_this_host = 1, bool rank_is_slurm_task = false);

// A UsageError (exit code 2) when the config's precision cannot run on a
// GPU (`gpu`) or a CPU with this LibTorch: fp16 autocast on CPUs needs
// LibTorch 2.x.
void check_precision_supported(const ExperimentConfig& config, bool gpu);

// What an out-of-memory message suggests for this experiment on `device`.
std::string out_of_memory_hint(const ExperimentConfig& config, const torch::Device& device);

}  // namespace trainer
