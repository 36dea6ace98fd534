#include "distributed/gradient_reducer.h"

#include "util/stopwatch.h"

namespace trainer {
namespace {
constexpr int64_t kFirstBucketBytes = 1024 * 1024;
}  // namespace

GradientReducer::GradientReducer(Communicator& communicator, std::vector<torch::Tensor> parameters,
                                 double bucket_mb)
    : communicator_(communicator) {
  // As DDP: the first bucket (the last layers) is small, so that its
  // all-reduce starts early in backward; the rest are bucket_mb.
  const auto cap = static_cast<int64_t>(bucket_mb * 1024.0 * 1024.0);
  const int64_t first_cap = std::min<int64_t>(cap, kFirstBucketBytes);
  // Reverse order: the last layer's gradients arrive first.
  std::vector<std::vector<size_t>> groups;
  int64_t group_bytes = 0;
  torch::ScalarType group_type = torch::kFloat32;
  for (size_t i = parameters.size(); i-- > 0;) {
    const auto& p = parameters[i];
    if (!p.requires_grad()) continue;
    const int64_t bytes = p.numel() * static_cast<int64_t>(p.element_size());
    const int64_t group_cap = groups.size() <= 1 ? first_cap : cap;
    if (groups.empty() || group_bytes + bytes > group_cap || p.scalar_type() != group_type) {
      if (groups.empty() || !groups.back().empty()) groups.emplace_back();
      group_bytes = 0;
      group_type = p.scalar_type();
    }
    slots_.push_back({p, groups.size() - 1, 0});
    groups.back().push_back(slots_.size() - 1);
    group_bytes += bytes;
  }
  for (const auto& group : groups) {
    Bucket bucket;
    int64_t numel = 0;
    for (size_t slot : group) {
      slots_[slot].offset = numel;
      numel += slots_[slot].parameter.numel();
    }
    const bool last = &group == &groups.back();
    bucket.gradient_numel = numel;
    bucket.flat = torch::zeros({numel + (last ? 1 : 0)}, slots_[group.front()].parameter.options().requires_grad(false));
    bucket.slots = group;
    buckets_.push_back(std::move(bucket));
  }
  stats_.buckets_per_step = static_cast<int64_t>(buckets_.size());
  filled_.assign(slots_.size(), false);
  for (size_t slot = 0; slot < slots_.size(); ++slot) {
    auto& parameter = slots_[slot].parameter;
    const unsigned handle = parameter.register_hook([this, slot](torch::Tensor gradient) { on_gradient(slot, gradient); });
    hooks_.emplace_back(parameter, handle);
  }
}

GradientReducer::~GradientReducer() {
  for (auto& [parameter, handle] : hooks_) parameter.remove_hook(handle);
}

void GradientReducer::begin_step(double weight, float vote) {
  weight_ = weight;
  holding_ = false;
  capturing_ = false;  // a capture that failed part way leaves it set
  filled_.assign(slots_.size(), false);
  buckets_.back().flat[buckets_.back().gradient_numel] = vote;
  next_to_launch_ = 0;
  for (auto& bucket : buckets_) {
    bucket.pending = bucket.slots.size();
    bucket.launched = false;
    bucket.work.reset();
  }
}

void GradientReducer::on_gradient(size_t slot_index, const torch::Tensor& gradient) {
  if (holding_) return;
  const Slot& slot = slots_[slot_index];
  Bucket& bucket = buckets_[slot.bucket];
  auto target = bucket.flat.narrow(0, slot.offset, slot.parameter.numel()).view_as(slot.parameter);
  torch::NoGradGuard no_grad;
  // The hook runs before autograd adds this gradient to .grad: what .grad
  // holds is the step's earlier batches' (train.accumulate), if any.
  const torch::Tensor& earlier = slot.parameter.grad();
  if (earlier.defined()) {
    torch::add_out(target, gradient, earlier);
    target.mul_(weight_);
  } else {
    torch::mul_out(target, gradient, weight_);
  }
  filled_[slot_index] = true;
  if (--bucket.pending == 0 && !capturing_) launch_ready_buckets();
}

void GradientReducer::begin_capture(double weight) {
  begin_step(weight);
  capturing_ = true;
}

void GradientReducer::end_capture() {
  torch::NoGradGuard no_grad;
  for (size_t slot = 0; slot < slots_.size(); ++slot) {
    if (filled_[slot]) continue;
    const Slot& s = slots_[slot];
    buckets_[s.bucket].flat.narrow(0, s.offset, s.parameter.numel()).zero_();
  }
  capturing_ = false;
}

void GradientReducer::reduce_replayed(float vote) {
  Stopwatch clock;
  torch::NoGradGuard no_grad;
  buckets_.back().flat[buckets_.back().gradient_numel] = vote;
  for (auto& bucket : buckets_) {
    bucket.work = communicator_.all_reduce_async(bucket.flat, ReduceOp::kSum);
    bucket.launched = true;
  }
  hand_out_gradients();
  stats_.finalize_seconds += clock.seconds();
  ++stats_.steps;
}

// Buckets start in index order on every rank, whatever order their gradients
// arrived in, so all ranks issue the same collectives in the same order.
void GradientReducer::launch_ready_buckets() {
  while (next_to_launch_ < buckets_.size() && buckets_[next_to_launch_].pending == 0) {
    Bucket& bucket = buckets_[next_to_launch_++];
    bucket.work = communicator_.all_reduce_async(bucket.flat, ReduceOp::kSum);
    bucket.launched = true;
  }
}

void GradientReducer::finalize() {
  Stopwatch clock;
  // Parameters that took no part in this batch's graph contribute what the
  // step's earlier batches left in .grad (train.accumulate), else zeros, as
  // does every parameter of a rank without samples.
  torch::NoGradGuard no_grad;
  for (auto& bucket : buckets_) {
    if (bucket.pending == 0) continue;
    for (size_t slot : bucket.slots) {
      if (filled_[slot]) continue;
      const Slot& s = slots_[slot];
      auto target = bucket.flat.narrow(0, s.offset, s.parameter.numel()).view_as(s.parameter);
      if (s.parameter.grad().defined()) torch::mul_out(target, s.parameter.grad(), weight_);
      else target.zero_();
    }
    bucket.pending = 0;
  }
  launch_ready_buckets();
  hand_out_gradients();
  stats_.finalize_seconds += clock.seconds();
  ++stats_.steps;
}

void GradientReducer::hand_out_gradients() {
  for (auto& bucket : buckets_) bucket.work->wait();
  for (const auto& slot : slots_) {
    auto averaged = buckets_[slot.bucket].flat.narrow(0, slot.offset, slot.parameter.numel()).view_as(slot.parameter);
    slot.parameter.mutable_grad() = averaged;
  }
}

}  // namespace trainer
