#!/usr/bin/env bash
# Where a training step's time goes, operator by operator: runs a reference
# experiment for two epochs with LibTorch's profiler on STEPS steps of the
# second (train.profile; the first epoch is warm-up) and prints the phases'
# and the top operators' shares of the step (scripts/bench/profile_top_ops.py).
# The profiler adds its own cost to every operator, so the shares are what
# to read, not the milliseconds.
#
# Usage: scripts/bench/step_profile.sh [EXPERIMENT] [THREADS] [STEPS] [--set KEY=VALUE ...]
#   EXPERIMENT: fashion_mnist_cnn (default) or reuters_conv1d (needs
#   TRAINER_DATA_DIR holding reuters21578/); after scripts/build.sh
#   TRAINER=PATH: another trainer binary (the GPU check's build-gpu/trainer);
#   PYTHON=PATH: the Python that reads the trace (default /usr/bin/python3)
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=scripts/lib/reference_run.sh
source scripts/lib/reference_run.sh
experiment=${1:-fashion_mnist_cnn}
threads=${2:-$(nproc)}
steps=${3:-50}
shift $(($# < 3 ? $# : 3))
require_reference_data step_profile "$experiment"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
reference_run "${TRAINER:-build/trainer}" "$experiment" "$out" profile --set "cpu_threads=$threads" \
  --set train.epochs=2 --set "train.profile={epoch: 2, steps: $steps}" "$@"
echo "$experiment, $threads threads, epoch 2:"
"${PYTHON:-/usr/bin/python3}" scripts/bench/profile_top_ops.py "$out/$experiment/profile/profile-2.json" 12
