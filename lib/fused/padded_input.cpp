// The checks every fused kernel of lib/fused makes of its (N, C, H, W)
// input and reflection padding (norm_chain_backend.h).
#include <algorithm>

#include "fused/norm_chain_backend.h"

namespace trainer::fused {

std::string padded_input_unfit(const at::Tensor& x, const std::array<int64_t, 4>& pad) {
  if (x.dim() != 4) return "the input has " + std::to_string(x.dim()) + " dimensions, not 4 (N, C, H, W)";
  const auto type = x.scalar_type();
  if (type != at::kFloat && type != at::kHalf && type != at::kBFloat16 && type != at::kDouble)
    return std::string("the input is ") + c10::toString(type);
  if (x.numel() == 0) return "the input is empty";
  if (std::max(pad[0], pad[1]) >= x.size(2) || std::max(pad[2], pad[3]) >= x.size(3))
    return "the reflection padding is not smaller than the input";
  // The kernels index in 32 bits: the NCHW ones within a plane, the
  // channels-last ones within the whole padded output.
  const int64_t padded_plane = (x.size(2) + pad[0] + pad[1]) * (x.size(3) + pad[2] + pad[3]);
  if (padded_plane * x.size(0) * x.size(1) >= (int64_t{1} << 31)) return "a tensor of 2^31 elements or more";
  return "";
}

}  // namespace trainer::fused
