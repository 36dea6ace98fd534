#pragma once
// Under the CUDA emulation: LibTorch's own unpacking of a PhiloxCudaState,
// compiled for the host.
#include <cstdint>
#include <tuple>

#include <ATen/cuda/CUDAGeneratorImpl.h>
#include <ATen/cuda/detail/UnpackRaw.cuh>
