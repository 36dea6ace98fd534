#include "distributed/communicator.h"

namespace trainer {
namespace {

class DoneCollective : public PendingCollective {
 public:
  void wait() override {}
};

class SingleProcessCommunicator : public Communicator {
 public:
  int rank() const override { return 0; }
  int world_size() const override { return 1; }
  std::string describe() const override { return "single process"; }
  std::unique_ptr<PendingCollective> all_reduce_async(torch::Tensor, ReduceOp) override {
    return std::make_unique<DoneCollective>();
  }
  void broadcast(std::vector<torch::Tensor>, int) override {}
  void barrier() override {}
  std::string share_from_rank0(const std::string&, const std::string& value) override { return value; }
  std::unique_ptr<KeyValueStore> open_store() override { return nullptr; }
};

}  // namespace

std::unique_ptr<Communicator> make_single_process_communicator() {
  return std::make_unique<SingleProcessCommunicator>();
}

}  // namespace trainer
