#!/usr/bin/env bash
# The GPU check, for a machine with an NVIDIA GPU and a Python PyTorch with
# CUDA, and possibly nothing else: no package archive, none of trainer's other
# dependencies. Steps:
#   1. unpack the dependency bundle (.gpu-bundle/, made by scripts/gpu-bundle.sh
#      on a Debian 12 machine and carried here) into a private prefix
#      (build-gpu/deps; never into /). Without a bundle the machine's own
#      packages are used, as scripts/install-deps.sh installs them. The data
#      sets of scripts/gpu-data.sh (.gpu-bundle/data.tar.xz), where carried,
#      go to build-gpu/data: TRAINER_DATA_DIR (unless set) and the photos of
#      data/deblur-photos (unless gathered here);
#   2. build trainer in build-gpu/ against the LibTorch inside that PyTorch
#      (torch.utils.cmake_prefix_path, C++11 ABI), with trainer's CUDA
#      kernels where nvcc is found (a failed build is reported, then built
#      again without them so that the other steps still run);
#   3. print the device inventory; the matrix-product benchmark on the CPU and
#      the first GPU side by side, and in fp16 and bf16; with --rows, the GPU
#      rows of docs/performance.md (scripts/bench/gpu_rows.sh: the product
#      against torch.mm, epochs against the Python loop, a step's profile);
#      then build the tests;
#   4. the GPU tests (tests/cli/gpu_e2e_test.cpp, tests/distributed/gpu_nccl_test.cpp: training
#      on gpu:0 with the device mapping logged, fp16 with loss scaling and bf16,
#      the memory budget enforced with exit code 6, bench cpu,gpu:0, two ranks
#      sharing a GPU, and with two GPUs or more data-parallel over NCCL);
#   5. TensorBoard's EventAccumulator on a GPU run's event file (where the
#      Python has TensorBoard), and that run's step split and NVML samples;
#   6. the whole suite.
# Every step runs even when an earlier one failed (after the build), each
# writes LOGS/NN-step.log, and the summary names the failures; the exit code
# is 1 if any step failed. Where no GPU is usable the GPU tests say SKIPPED.
#
# trainer is built and measured before the tests are built, so that a check
# cut short by a lease's end has its figures.
#
# Usage: scripts/gpu-check.sh [--python PYTHON] [--bundle DIR] [--data FILE] [--logs DIR] [--rows] [--no-suite] [--build-only]
#   --data        the data archive (default BUNDLE/data.tar.xz, where it exists)
#   --build-only  steps 1 and 2 alone (scripts/gpu-lease.sh orders the rest itself)
#   --rows        step 3's GPU rows (GPU_ROWS=deblur,epochs picks their sections)
#   --no-suite    leaves out step 6, the whole suite (a short lease: the GPU tests are step 4)
set -uo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib/gpu_bundle.sh
source scripts/lib/gpu_bundle.sh
# shellcheck source=scripts/lib/step_logs.sh
source scripts/lib/step_logs.sh
# shellcheck source=scripts/lib/cmake_generator.sh
source scripts/lib/cmake_generator.sh

python=python3
bundle=.gpu-bundle
data_archive=""
logs=build-gpu/logs
rows=false
suite=true
build_only=false
while [ $# -gt 0 ]; do
  case $1 in
    --python) python=$2; shift 2 ;;
    --bundle) bundle=$2; shift 2 ;;
    --data) data_archive=$2; shift 2 ;;
    --logs) logs=$2; shift 2 ;;
    --rows) rows=true; shift ;;
    --no-suite) suite=false; shift ;;
    --build-only) build_only=true; shift ;;
    *) echo "usage: scripts/gpu-check.sh [--python PYTHON] [--bundle DIR] [--data FILE] [--logs DIR] [--rows] [--no-suite] [--build-only]" >&2
       exit 2 ;;
  esac
done
mkdir -p "$logs"
logs=$(cd "$logs" && pwd)
jobs=$(nproc)
failed=()

# step NAME COMMAND...: runs it, its output to the console and LOGS/NN-NAME.log.
step() {
  local name=$1; shift
  next_step_log "$name"
  local log=$step_log
  echo "=== gpu-check: $name"
  local start=$SECONDS
  if "$@" 2>&1 | tee "$log"; then
    echo "=== gpu-check: $name passed ($((SECONDS - start)) s)"
  else
    echo "=== gpu-check: $name FAILED ($((SECONDS - start)) s; log $log)"
    failed+=("$name")
  fi
}

summary() {
  echo "=== gpu-check summary: $step_number steps, ${#failed[@]} failed${failed:+: ${failed[*]}}; logs in $logs"
  [ ${#failed[@]} -eq 0 ]
}

torch_prefix=$("$python" -c 'import torch; print(torch.utils.cmake_prefix_path)') || exit 2
cuda=$("$python" -c 'import torch; print(torch.version.cuda or "")')
abi=$("$python" -c 'import torch; print(int(torch._C._GLIBCXX_USE_CXX11_ABI))')
echo "gpu-check: PyTorch $("$python" -c 'import torch; print(torch.__version__)') from $torch_prefix" \
     "(CUDA ${cuda:-none}, C++11 ABI $abi)"
if [ "$abi" != 1 ]; then
  echo "gpu-check: this PyTorch uses the pre-C++11 ABI; Debian's yaml-cpp, spdlog and fmt do not link with it." >&2
  echo "gpu-check: use a PyTorch built with the C++11 ABI (2.6 and later wheels are) or LibTorch's cxx11-abi zip." >&2
  exit 2
fi

cmake_args=(-DCMAKE_BUILD_TYPE=Release -DTRAINER_BUILD_TESTS=ON -DTRAINER_USE_CCACHE=OFF)
if compgen -G "$bundle/*.deb" >/dev/null; then
  deps=$(pwd)/build-gpu/deps
  unpack_bundle "$bundle" "$deps" || exit 2
  echo "gpu-check: $(ls "$bundle"/*.deb | wc -l) packages of $bundle unpacked into $deps"
  mapfile -t bundle_args < <(bundle_cmake_args "$deps")
  cmake_args+=("-DCMAKE_PREFIX_PATH=$deps/usr;$torch_prefix" "${bundle_args[@]}")
else
  echo "gpu-check: no bundle in $bundle: using this machine's own packages"
  cmake_args+=("-DCMAKE_PREFIX_PATH=$torch_prefix")
fi

[ -z "$data_archive" ] && [ -f "$bundle/data.tar.xz" ] && data_archive=$bundle/data.tar.xz
if [ -n "$data_archive" ]; then
  data_dir=$(pwd)/build-gpu/data
  unpack_data "$data_archive" "$data_dir" || exit 2
  echo "gpu-check: data sets of $data_archive in $data_dir: $(ls "$data_dir" | paste -sd' ')"
  if [ -z "${TRAINER_DATA_DIR:-}" ]; then export TRAINER_DATA_DIR=$data_dir; fi
  if [ -d "$data_dir/deblur-photos" ] && [ ! -e data/deblur-photos ]; then
    mkdir -p data
    ln -s "$data_dir/deblur-photos" data/deblur-photos
  fi
fi

# trainer's own CUDA kernels (lib/fused) need nvcc: on PATH, in CUDACXX, or
# where CUDA installs itself.
if [ -z "${CUDACXX:-}" ] && ! command -v nvcc >/dev/null; then
  for candidate in /usr/local/cuda/bin/nvcc /usr/local/cuda-*/bin/nvcc; do
    if [ -x "$candidate" ]; then export CUDACXX=$candidate; break; fi
  done
fi
echo "gpu-check: CUDA compiler for trainer's kernels: ${CUDACXX:-$(command -v nvcc || echo 'none (they are left out)')}"

# Ninja, where the machine has it (a PyTorch machine may have it only as its
# Python's package): on 16 cores, replayed from measured step times, the
# build takes less than half as long as in the Makefiles' order
# (scripts/lib/cmake_generator.sh), minutes a short lease trains instead.
python_ninja=$("$python" -c 'import os, ninja; print(os.path.join(ninja.BIN_DIR, "ninja"))' 2>/dev/null || true)
mapfile -t generator < <(cmake_generator_args build-gpu "$python_ninja")
cmake_args+=("${generator[@]}")
step configure cmake -S . -B build-gpu "${cmake_args[@]}"
echo "gpu-check: build tool: $(sed -n 's/^CMAKE_GENERATOR:INTERNAL=//p' build-gpu/CMakeCache.txt 2>/dev/null)"
[ ${#failed[@]} -eq 0 ] && step build cmake --build build-gpu -j"$jobs" --target trainer
if [ ${#failed[@]} -gt 0 ]; then
  # The failure stays in the summary; the rest of the check still runs on a
  # build without trainer's CUDA kernels (the GPU path then runs LibTorch's).
  echo "gpu-check: building again without trainer's CUDA kernels (-DTRAINER_CUDA_KERNELS=OFF)"
  first_failures=${#failed[@]}
  step configure-without-kernels cmake -S . -B build-gpu "${cmake_args[@]}" -DTRAINER_CUDA_KERNELS=OFF
  step build-without-kernels cmake --build build-gpu -j"$jobs" --target trainer
  if [ ${#failed[@]} -gt "$first_failures" ]; then summary; exit 1; fi
fi
if $build_only; then summary; exit; fi

step devices build-gpu/trainer devices
if [ -n "$cuda" ] && "$python" -c 'import sys, torch; sys.exit(0 if torch.cuda.is_available() else 1)'; then
  step bench-fp32 build-gpu/trainer bench --device cpu,gpu:0 --repeat 5
  step bench-fp16 build-gpu/trainer bench --device gpu:0 --dtype fp16 --repeat 5
  step bench-bf16 build-gpu/trainer bench --device gpu:0 --dtype bf16 --repeat 5
  $rows && step gpu-rows scripts/bench/gpu_rows.sh build-gpu/trainer "$python"
else
  echo "gpu-check: no usable GPU: the GPU tests will say SKIPPED"
fi
step build-tests cmake --build build-gpu -j"$jobs"
step gpu-tests ctest --test-dir build-gpu --output-on-failure -R "NCCL|GPU|gpu"
# TensorBoard's own reader on the event file of the GPU monitoring test's run
# (where this machine's Python has TensorBoard), and that run's profile and
# GPU samples as figures.
monitored=build-gpu/tests/tmp/gpu-monitoring/runs/mlp/run
if [ -d "$monitored" ] && "$python" -c 'import tensorboard' 2>/dev/null; then
  step tensorboard-reads "$python" scripts/check-tensorboard-reads.py "$monitored"
fi
[ -f "$monitored/metrics.jsonl" ] && step gpu-monitoring cat "$monitored/metrics.jsonl"
$suite && step all-tests ctest --test-dir build-gpu --output-on-failure -j"$jobs"
summary
