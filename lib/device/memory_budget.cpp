#include "device/memory_budget.h"

#include <c10/core/CPUAllocator.h>

#include <algorithm>
#include <cstdio>
#include <mutex>
#include <unordered_map>

#include "util/error.h"
#include "util/text.h"
#include "util/torch_compat.h"

namespace trainer {
namespace {

// Counts what it hands out. The context of each DataPtr is the data pointer
// itself (LibTorch's raw_allocate() insists on that), so the sizes are kept
// in a map beside it.
class BudgetAllocator final : public compat::AllocatorBase {
 public:
  explicit BudgetAllocator(c10::Allocator* inner) : inner_(inner), inner_free_(inner->raw_deleter()) {}

  void set_budget(int64_t bytes, std::string what_to_try) {
    std::lock_guard<std::mutex> lock(mutex_);
    budget_ = bytes;
    what_to_try_ = std::move(what_to_try);
  }
  MemoryUsage usage() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return {budget_, current_, peak_};
  }
  void reset_peak() {
    std::lock_guard<std::mutex> lock(mutex_);
    peak_ = current_;
  }
  c10::DeleterFnPtr raw_deleter() const override { return &release; }

 protected:
  c10::DataPtr allocate_bytes(size_t bytes) const override {
    const auto size = static_cast<int64_t>(bytes);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (budget_ > 0 && current_ + size > budget_)
        throw OutOfMemoryError("cpu: allocating " + format_mib(size) + " would exceed memory_limit " +
                                   format_mib(budget_) + " (" + format_mib(current_) + " in use, peak " +
                                   format_mib(peak_) + ")",
                               what_to_try_);
      current_ += size;
      peak_ = std::max(peak_, current_);
    }
    void* data = inner_->raw_allocate(bytes);
    if (data != nullptr) {
      std::lock_guard<std::mutex> lock(mutex_);
      sizes_[data] = size;
    }
    return {data, data, &release, c10::Device(c10::DeviceType::CPU)};
  }

 private:
  static void release(void* data);
  void forget(void* data) const {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      const auto found = sizes_.find(data);
      if (found != sizes_.end()) {
        current_ -= found->second;
        sizes_.erase(found);
      }
    }
    inner_free_(data);
  }

  c10::Allocator* inner_;
  c10::DeleterFnPtr inner_free_;
  mutable std::mutex mutex_;
  mutable std::unordered_map<void*, int64_t> sizes_;
  mutable int64_t budget_ = 0;
  mutable int64_t current_ = 0;
  mutable int64_t peak_ = 0;
  std::string what_to_try_;
};

BudgetAllocator& installed_allocator() {
  // Installed once and never freed: tensors allocated through it may
  // outlive any scope (one of the two globals allowed with the logger).
  static BudgetAllocator* allocator = [] {
    auto* created = new BudgetAllocator(c10::GetDefaultCPUAllocator());
    c10::SetCPUAllocator(created, /*priority=*/100);
    return created;
  }();
  return *allocator;
}

void BudgetAllocator::release(void* data) { installed_allocator().forget(data); }

}  // namespace

void set_cpu_memory_budget(int64_t budget_bytes, const std::string& what_to_try) {
  installed_allocator().set_budget(budget_bytes, what_to_try);
}

MemoryUsage cpu_memory_usage() { return installed_allocator().usage(); }

void reset_cpu_memory_peak() { installed_allocator().reset_peak(); }

}  // namespace trainer
