#pragma once
// Every LibTorch call whose spelling differs between the versions trainer
// supports (Debian's 1.13 and PyTorch's 2.x) lives here, so a port touches
// one file. Include only from files that already need torch.
#include <torch/torch.h>

#include <type_traits>

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/autocast_mode.h>
#include <c10/core/Allocator.h>
#include <ATen/core/Generator.h>

namespace trainer::compat {

// A CPU random generator with its own seed, independent of the global one.
inline at::Generator make_cpu_generator(uint64_t seed) {
  return at::make_generator<at::CPUGeneratorImpl>(seed);
}

// Whether `e` is LibTorch's CPU allocator refusing memory: a plain
// c10::Error told apart only by its text, which differs by version ("can't
// allocate memory" when posix_memalign fails, 1.13 and 2.x; "not enough
// memory" when the platform allocator returns null, 2.x).
inline bool is_cpu_allocation_failure(const c10::Error& e) {
  const std::string what = e.what_without_backtrace();
  return what.find("DefaultCPUAllocator: can't allocate memory") != std::string::npos ||
         what.find("DefaultCPUAllocator: not enough memory") != std::string::npos;
}

// The global CPU generator, which dropout and torch::rand* use by default.
inline at::Generator default_cpu_generator() { return at::detail::getDefaultCPUGenerator(); }

inline torch::Tensor generator_state(at::Generator generator) {
  std::lock_guard<std::mutex> lock(generator.mutex());
  return generator.get_state();
}

inline void set_generator_state(at::Generator& generator, const torch::Tensor& state) {
  std::lock_guard<std::mutex> lock(generator.mutex());
  generator.set_state(state);
}

// c10d's TCPStore: LibTorch 2.x serves it with libuv by default, which
// Debian's build lacks; 1.13 has no such option. Chosen by whether the
// options struct has the member, so no version test is needed.
template <class StoreOptions>
auto disable_store_libuv(StoreOptions& options, int) -> decltype(options.useLibUV = false, void()) {
  options.useLibUV = false;
}
template <class StoreOptions>
void disable_store_libuv(StoreOptions&, long) {}
template <class StoreOptions>
void use_classic_tcp_store(StoreOptions& options) {
  disable_store_libuv(options, 0);
}

// Autocast on or off for one device type, with its lower-precision dtype.
// 2.4 replaced the per-device setters by ones taking the device type.
inline void set_autocast(at::DeviceType device, bool enabled, at::ScalarType dtype) {
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
  at::autocast::set_autocast_dtype(device, dtype);
  at::autocast::set_autocast_enabled(device, enabled);
#else
  if (device == at::kCPU) {
    at::autocast::set_autocast_cpu_dtype(dtype);
    at::autocast::set_cpu_enabled(enabled);
  } else {
    at::autocast::set_autocast_gpu_dtype(dtype);
    at::autocast::set_enabled(enabled);
  }
#endif
}

// c10::Allocator changed in 2.3: allocate() lost its const and copy_data()
// became pure virtual. Allocators derive from this and implement
// allocate_bytes().
class AllocatorBase : public c10::Allocator {
 public:
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 3)
  c10::DataPtr allocate(size_t bytes) override { return allocate_bytes(bytes); }
  void copy_data(void* dest, const void* src, std::size_t count) const override {
    default_copy_data(dest, src, count);
  }
#else
  c10::DataPtr allocate(size_t bytes) const override { return allocate_bytes(bytes); }
#endif

 protected:
  virtual c10::DataPtr allocate_bytes(size_t bytes) const = 0;
};

// The key of a parameter's entry in torch::optim::Optimizer::state_: its
// TensorImpl's address, as a string in 1.13 and as the pointer in 2.x. The
// optimizers' own serialization uses the same keys.
inline auto optimizer_state_key(const torch::Tensor& parameter) {
#if TORCH_VERSION_MAJOR >= 2
  return static_cast<void*>(parameter.unsafeGetTensorImpl());
#else
  return c10::guts::to_string(parameter.unsafeGetTensorImpl());
#endif
}

inline std::string torch_version() {
#ifdef TORCH_VERSION
  return TORCH_VERSION;
#else
  return std::to_string(TORCH_VERSION_MAJOR) + "." + std::to_string(TORCH_VERSION_MINOR) + "." +
         std::to_string(TORCH_VERSION_PATCH);
#endif
}

// The alternative T held by one of LibTorch's option variants (padding,
// padding_mode), or null: they are c10::variant in 1.13 and std::variant in
// 2.x, and the unqualified `visit` finds c10's or std's by the argument's
// namespace.
template <class T, class Variant>
const T* alternative(const Variant& options_variant) {
  return visit(
      [](const auto& held) -> const T* {
        if constexpr (std::is_same_v<std::decay_t<decltype(held)>, T>) return &held;
        else return nullptr;
      },
      options_variant);
}

}  // namespace trainer::compat
