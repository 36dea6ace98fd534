#include "distributed/launch_env.h"

#include <cstdlib>

#include "util/error.h"

namespace trainer {
namespace {

std::optional<std::string> read(const EnvLookup& env, const char* name) {
  const char* value = env(name);
  if (value == nullptr || *value == '\0') return std::nullopt;
  return std::string(value);
}

int read_int(const EnvLookup& env, const char* name, int min, std::optional<int> fallback) {
  const auto text = read(env, name);
  if (!text) {
    if (fallback) return *fallback;
    throw UsageError(std::string("the launch environment lacks ") + name,
                     "set it, or start trainer without a launcher: trainer run FILE --devices cpu,cpu");
  }
  char* end = nullptr;
  const long value = std::strtol(text->c_str(), &end, 10);
  if (end == text->c_str() || *end != '\0' || value < min || value > 1'000'000)
    throw UsageError(std::string(name) + "='" + *text + "' is not an integer >= " + std::to_string(min));
  return static_cast<int>(value);
}

void check_consistent(const LaunchInfo& info, const std::string& rank_name, const std::string& world_name) {
  if (info.rank >= info.world_size)
    throw UsageError(rank_name + "=" + std::to_string(info.rank) + " is not below " + world_name + "=" +
                     std::to_string(info.world_size));
  if (info.local_rank >= info.local_world_size)
    throw UsageError("the local rank " + std::to_string(info.local_rank) + " is not below the ranks per node " +
                     std::to_string(info.local_world_size));
  if (info.master_port < 1 || info.master_port > 65535)
    throw UsageError("MASTER_PORT=" + std::to_string(info.master_port) + " is not a port (1-65535)");
}

std::optional<LaunchInfo> from_torchrun(const EnvLookup& env) {
  if (!read(env, "RANK") && !read(env, "WORLD_SIZE")) return std::nullopt;
  LaunchInfo info;
  info.world_size = read_int(env, "WORLD_SIZE", 1, std::nullopt);
  info.rank = read_int(env, "RANK", 0, std::nullopt);
  info.local_rank = read_int(env, "LOCAL_RANK", 0, info.rank);
  info.local_world_size = read_int(env, "LOCAL_WORLD_SIZE", 1, info.world_size);
  info.master_addr = read(env, "MASTER_ADDR").value_or("127.0.0.1");
  info.master_port = read_int(env, "MASTER_PORT", 0, std::nullopt);
  info.rank0_hosts_store = read(env, "TORCHELASTIC_USE_AGENT_STORE").value_or("False") != "True";
  info.source = read(env, "TRAINER_SUPERVISED") ? "trainer supervisor" : "torchrun-style environment";
  if (auto run_dir = read(env, kRunDirVariable)) info.run_dir = *run_dir;
  check_consistent(info, "RANK", "WORLD_SIZE");
  return info;
}

std::optional<LaunchInfo> from_slurm(const EnvLookup& env) {
  if (!read(env, "SLURM_PROCID")) return std::nullopt;
  LaunchInfo info;
  info.world_size = read_int(env, "SLURM_NTASKS", 1, 1);
  if (info.world_size == 1) return std::nullopt;  // one task: trainer may launch ranks itself
  info.rank = read_int(env, "SLURM_PROCID", 0, std::nullopt);
  info.local_rank = read_int(env, "SLURM_LOCALID", 0, 0);
  // "4" or "4(x2)": tasks per node on a homogeneous allocation.
  const std::string per_node = read(env, "SLURM_NTASKS_PER_NODE").value_or("");
  info.local_world_size = per_node.empty() ? info.world_size : std::max(1, std::atoi(per_node.c_str()));
  const auto nodelist = read(env, "SLURM_JOB_NODELIST");
  if (!nodelist) throw UsageError("SLURM_PROCID is set but SLURM_JOB_NODELIST is not");
  info.master_addr = read(env, "MASTER_ADDR").value_or(first_slurm_host(*nodelist));
  info.master_port = read_int(env, "MASTER_PORT", 1, 29500);
  info.source = "SLURM";
  info.rank_is_slurm_task = true;
  check_consistent(info, "SLURM_PROCID", "SLURM_NTASKS");
  return info;
}

}  // namespace

std::optional<LaunchInfo> launch_from_environment(const EnvLookup& env) {
  if (auto info = from_torchrun(env)) return info->world_size > 1 ? info : std::nullopt;
  return from_slurm(env);
}

std::string first_slurm_host(const std::string& nodelist) {
  const size_t end = nodelist.find_first_of(",[");
  if (end == std::string::npos || nodelist[end] == ',') return nodelist.substr(0, end);
  // prefix[03-05,9]: the first number of the range, zero padding kept.
  const size_t close = nodelist.find(']', end);
  if (close == std::string::npos) throw UsageError("SLURM_JOB_NODELIST='" + nodelist + "' has an unclosed '['");
  const std::string range = nodelist.substr(end + 1, close - end - 1);
  return nodelist.substr(0, end) + range.substr(0, range.find_first_of("-,"));
}

std::pair<std::string, int> parse_host_port(const std::string& text, const std::string& what) {
  const size_t colon = text.rfind(':');
  const std::string host = colon == std::string::npos ? "" : text.substr(0, colon);
  const std::string port_text = colon == std::string::npos ? "" : text.substr(colon + 1);
  char* end = nullptr;
  const long port = port_text.empty() ? 0 : std::strtol(port_text.c_str(), &end, 10);
  if (host.empty() || port < 1 || port > 65535 || (end != nullptr && *end != '\0'))
    throw UsageError(what + " '" + text + "' is not HOST:PORT", "e.g. --master 10.0.0.1:29500");
  return {host, static_cast<int>(port)};
}

}  // namespace trainer
