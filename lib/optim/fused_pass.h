#pragma once
// What the fused optimizer passes share: whether a parameter's tensors fit
// the element-by-element loops, and how a pass is split among the threads.
#include <cstdint>
#include <functional>
#include <initializer_list>

namespace at {
class Tensor;
}

namespace trainer {

// True when `param` and every tensor in `others` (its gradient, its state)
// are float32 on the CPU, dense (contiguous or channels-last) and laid out
// alike, so the loops can walk their memory side by side; anything else (a
// GPU, double, a strided view, an undefined state) takes the tensor
// operations.
bool fusable(const at::Tensor& param, std::initializer_list<const at::Tensor*> others);

// Calls update(begin, end) over [0, elements) in chunks of LibTorch's grain
// for element-wise kernels: small tensors stay on one thread, large ones are
// split among the intra-op threads.
void for_chunks(int64_t elements, const std::function<void(int64_t, int64_t)>& update);

}  // namespace trainer
