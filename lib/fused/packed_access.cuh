#pragma once
// Moving P neighbouring elements (channels, in the channels-last kernels)
// in one access of P * sizeof(T) bytes: a warp then moves 256 or 512 bytes
// an instruction where it moved 64 (2-byte types) or 128, so that fewer
// warps keep a GPU's memory busy. The kernels fall back to one element an
// access (P = 1) where the channels or the data's alignment do not allow.
#include <ATen/ATen.h>

#include <initializer_list>
#include <stdint.h>
#include <type_traits>

namespace trainer::fused {

template <typename T, int P>
struct alignas(sizeof(T) * P) Pack {
  T v[P];
};

// Four elements a pack (two for double): eight channels' worth of plane
// constants and gathered sums a thread would hold in registers cost the
// GPU more warps than the wider access gains.
template <typename T>
constexpr int pack_size() {
  return sizeof(T) > 4 ? 2 : 4;
}

// A Pack's values as floats, summed: what a gradient gathered from the
// padded positions that read a pack of elements adds up to. The Pack is
// taken by value, so that it is loaded whole, in one access.
template <int P>
struct FloatPack {
  float v[P];
  __device__ FloatPack(int zero = 0) {
#pragma unroll
    for (int k = 0; k < P; ++k) v[k] = static_cast<float>(zero);
  }
  template <typename T>
  __device__ explicit FloatPack(const Pack<T, P> p) {
#pragma unroll
    for (int k = 0; k < P; ++k) v[k] = static_cast<float>(p.v[k]);
  }
  __device__ FloatPack& operator+=(const FloatPack& o) {
#pragma unroll
    for (int k = 0; k < P; ++k) v[k] += o.v[k];
    return *this;
  }
};

// Whether tensors of `channels` channels (channels-last) with these data
// may be read and written a Pack<T, pack_size<T>()> at a time.
template <typename T>
bool packs_fit(int64_t channels, std::initializer_list<const at::Tensor*> tensors) {
  constexpr int P = pack_size<T>();
  if (channels % P != 0) return false;
  for (const at::Tensor* t : tensors)
    if (reinterpret_cast<uintptr_t>(t->data_ptr()) % sizeof(Pack<T, P>) != 0) return false;
  return true;
}

// Calls body(std::integral_constant<int, P>()): P = pack_size<T>() where
// `packed`, else 1.
template <typename T, typename Body>
void with_pack(bool packed, Body&& body) {
  if (packed)
    body(std::integral_constant<int, pack_size<T>()>());
  else
    body(std::integral_constant<int, 1>());
}

}  // namespace trainer::fused
