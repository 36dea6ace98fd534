#!/usr/bin/env bash
# What mixed precision adds to a training step, counted: runs a reference
# experiment twice, in fp32 and in PRECISION (bf16 by default), each with
# LibTorch's profiler on STEPS steps of its second epoch (train.profile;
# the first is warm-up), and prints the operators (and on a GPU the
# kernels) whose number a step differs (scripts/bench/autocast_ops.py):
# autocast's casts of the weights, biases and inputs in the forward pass
# and of their gradients back to fp32 in backward. Counts, not times.
#
# Usage: scripts/bench/autocast_ops.sh [EXPERIMENT] [PRECISION] [STEPS] [--set KEY=VALUE ...]
#   EXPERIMENT: reuters_conv1d (default; needs TRAINER_DATA_DIR holding
#   reuters21578/) or fashion_mnist_cnn; after scripts/build.sh
#   TRAINER=PATH: another trainer binary (the GPU check's build-gpu/trainer,
#   with --set devices=gpu:0); PYTHON=PATH: the Python that reads the traces
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=scripts/lib/reference_run.sh
source scripts/lib/reference_run.sh
experiment=${1:-reuters_conv1d}
precision=${2:-bf16}
steps=${3:-20}
shift $(($# < 3 ? $# : 3))
require_reference_data autocast_ops "$experiment"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for run in fp32 "$precision"; do
  reference_run "${TRAINER:-build/trainer}" "$experiment" "$out" "$run" --set "precision=$run" \
    --set train.epochs=2 --set "train.steps_per_epoch=$((steps + 2))" \
    --set "train.profile={epoch: 2, steps: $steps}" "$@"
done
echo "$experiment, $steps steps of epoch 2, fp32 against $precision:"
echo
"${PYTHON:-/usr/bin/python3}" scripts/bench/autocast_ops.py "$out/$experiment/fp32/profile-2.json" \
  "$out/$experiment/$precision/profile-2.json"
