#include "distributed/cluster.h"

#include <functional>

#include "distributed/backend_choice.h"
#include "distributed/c10d_communicator.h"
#include "util/error.h"

namespace trainer {

Cluster::Cluster(const std::optional<LaunchInfo>& launch, const DistConfig& config,
                 const std::vector<std::string>& devices) {
  if (!launch || !launch->distributed()) {
    communicator_ = make_single_process_communicator();
    return;
  }
  launch_ = *launch;
  ConnectOptions options;
  options.connect_timeout_seconds = config.connect_timeout;
  options.collective_timeout_seconds = config.timeout;
  const BackendChoice backend = choose_backend(devices, launch_.local_rank, launch_.local_world_size, nccl_compiled_in());
  options.nccl_device = backend.cuda_device;
  backend_note_ = backend.note;
  communicator_ = connect_c10d(launch_, options);
  heartbeat_ = std::make_unique<Heartbeat>(communicator_->open_store(), launch_.rank, launch_.world_size,
                                           config.timeout);
  communicator_->set_failure_explainer([this] { return heartbeat_->explain(); });
}

Cluster::~Cluster() {
  if (communicator_) communicator_->set_failure_explainer({});
}

void Cluster::require_same(const std::string& what, const std::string& value) {
  if (!distributed()) return;
  const std::string key = "same/" + what;
  const std::string root_value = communicator_->share_from_rank0(key, value);
  // Every rank learns whether any rank differs, so none goes on alone.
  auto votes = torch::zeros({world_size()});
  if (root_value != value) votes[rank()] = 1.0f;
  communicator_->all_reduce(votes);
  for (int r = 0; r < world_size(); ++r)
    if (votes[r].item<float>() > 0)
      throw DistributedError("rank " + std::to_string(r) + "'s " + what + " differs from rank 0's",
                             "start every rank with the same experiment file, overrides and data");
}

void Cluster::finish() {
  if (!distributed()) return;
  set_phase(Phase::kFinishing);
  communicator_->barrier();
  heartbeat_->stop();
  communicator_->barrier();
}

}  // namespace trainer
