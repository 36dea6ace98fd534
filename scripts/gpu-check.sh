#!/usr/bin/env bash
# On a machine with an NVIDIA GPU and a Python PyTorch with CUDA: builds
# trainer against the LibTorch inside that PyTorch (torch.utils.cmake_prefix_path)
# in build-gpu/, prints the device inventory, runs the matrix-product
# benchmark on the CPU and the first GPU side by side, and runs the GPU tests
# (tests/gpu_e2e_test.cpp, tests/gpu_nccl_test.cpp: training on gpu:0 with the
# device mapping logged, fp16 with loss scaling and bf16, the memory budget
# enforced with exit code 6, bench cpu,gpu:0, two ranks sharing a GPU, and
# with two GPUs or more, data-parallel over NCCL); the rest of the suite follows.
# GPU tests skip with a message where no GPU exists, so this also runs, and
# says so, on a machine without one.
#
# Usage: scripts/gpu-check.sh [PYTHON]   (default python3; the other
# dependencies as scripts/install-deps.sh installs them, without libtorch-dev)
set -euo pipefail
cd "$(dirname "$0")/.."
python=${1:-python3}
prefix=$("$python" -c 'import torch; print(torch.utils.cmake_prefix_path)')
cuda=$("$python" -c 'import torch; print(torch.version.cuda or "")')
abi=$("$python" -c 'import torch; print(int(torch._C._GLIBCXX_USE_CXX11_ABI))')
echo "gpu-check: LibTorch from $prefix (CUDA ${cuda:-none}, C++11 ABI $abi)"
if [ "$abi" != 1 ]; then
  echo "gpu-check: this PyTorch uses the pre-C++11 ABI; Debian's yaml-cpp, spdlog and fmt do not link with it." >&2
  echo "gpu-check: use a PyTorch built with the C++11 ABI (2.6 and later wheels are) or LibTorch's cxx11-abi zip." >&2
  exit 2
fi
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DTRAINER_BUILD_TESTS=ON -DCMAKE_PREFIX_PATH="$prefix"
cmake --build build-gpu -j"$(nproc)"
build-gpu/trainer devices
if [ -n "$cuda" ] && "$python" -c 'import sys, torch; sys.exit(0 if torch.cuda.is_available() else 1)'; then
  build-gpu/trainer bench --device cpu,gpu:0 --repeat 5
  build-gpu/trainer bench --device gpu:0 --dtype fp16 --repeat 5
else
  echo "gpu-check: no usable GPU: the GPU tests will say SKIPPED"
fi
cd build-gpu
ctest --output-on-failure -R "NCCL|GPU|gpu" 2>&1 | tee gpu-tests.log
skipped=$(grep -c "SKIPPED" Testing/Temporary/LastTest.log || true)
echo "gpu-check: $skipped GPU test(s) skipped"
ctest --output-on-failure -j"$(nproc)"
