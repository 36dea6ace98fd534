#!/usr/bin/env bash
# The GPU rows of docs/performance.md, each measured side by side in one run
# on the first GPU, against the PyTorch whose LibTorch trainer was built on
# (the GPU check builds it so):
#   1. the matrix product: `trainer bench` against torch.mm in that Python
#      (scripts/bench/torch_matmul.py: same inputs, warm-up, median of 10),
#      alternated REPEATS times; the ratio is trainer's GFLOP/s over torch's;
#   2. an epoch of each reference experiment on gpu:0 (fp32, and bf16
#      autocast) against the PyTorch-in-Python loop on the same GPU
#      (pytorch_reference.py with REFERENCE_DEVICE=cuda): the last epoch's
#      training seconds, alternated REPEATS times;
#   3. where a GPU step's host time goes (step_profile.sh on gpu:0; the
#      legacy profiler sees launches, not kernels).
# Reuters needs $TRAINER_DATA_DIR/reuters21578; Fashion-MNIST is read from
# $TRAINER_DATA_DIR/fashion-mnist or the Debian package's folder.
#
# Usage: scripts/bench/gpu_rows.sh [TRAINER] [PYTHON] [REPEATS] [EPOCHS]
#   (defaults: build-gpu/trainer python3 2 2)
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
# shellcheck source=scripts/lib/reference_run.sh
source scripts/lib/reference_run.sh
trainer=${1:-build-gpu/trainer}
python=${2:-python3}
repeats=${3:-2}
epochs=${4:-2}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
data=${TRAINER_DATA_DIR:-}

json_gflops() { "$python" -c 'import json, sys; print(json.load(sys.stdin)["results"][0]["gflops"])'; }

echo "== matrix product on gpu:0: trainer bench against torch.mm ($("$python" -c 'import torch; print(torch.__version__)')), GFLOP/s, median of 10 after a warm-up"
printf '%-17s %-5s %-6s %12s %12s %8s\n' shape dtype repeat trainer torch.mm ratio
for case in 10000x100x100000:fp32 8192x8192x8192:fp32 8192x8192x8192:bf16; do
  shape=${case%:*} dtype=${case#*:}
  for repeat in $(seq "$repeats"); do
    t=$("$trainer" bench --device gpu:0 --shape "$shape" --dtype "$dtype" --repeat 10 --json | json_gflops)
    p=$("$python" scripts/bench/torch_matmul.py cuda "$shape" "$dtype" 10 | awk '{ print $3 }')
    awk -v s="$shape" -v d="$dtype" -v r="$repeat" -v t="$t" -v p="$p" \
      'BEGIN { printf "%-17s %-5s %-6s %12.0f %12.0f %8.3f\n", s, d, r, t, p, t / p }'
  done
done

trainer_epoch() {  # $1 experiment, $2 precision, $3 repeat -> last epoch's training seconds
  reference_run "$trainer" "$1" "$out/runs" "$2-$3" --set devices=gpu:0 --set "precision=$2" \
    --set "train.epochs=$epochs" || { echo failed; return; }
  "$python" scripts/bench/last_epoch.py "$out/runs/$1/$2-$3/metrics.jsonl" train_seconds val_accuracy |
    awk '{ printf "%.3f %.4f\n", $1, $2 }'
}

echo
echo "== epoch on gpu:0 ($epochs epochs; the last one's training steps, seconds): trainer against the Python loop on cuda"
printf '%-18s %-9s %-6s %10s %12s %10s %16s\n' experiment precision repeat trainer "val acc" python python/trainer
for experiment in reuters_conv1d fashion_mnist_cnn; do
  short=${experiment%%_*}
  python_args=("$short" "$(nproc)" "$epochs")
  if [ "$short" = reuters ]; then
    [ -d "$data/reuters21578" ] || { echo "no $data/reuters21578: Reuters left out"; continue; }
    python_args+=("$data/reuters21578")
  fi
  for repeat in $(seq "$repeats"); do
    p=$(REFERENCE_DEVICE=cuda "$python" scripts/bench/pytorch_reference.py "${python_args[@]}" | tail -1 | awk '{ print $2 }')
    for precision in fp32 bf16; do
      read -r t accuracy <<<"$(trainer_epoch "$experiment" "$precision" "$repeat")"
      ratio=$(awk -v t="$t" -v p="$p" 'BEGIN { if (t + 0 > 0 && p + 0 > 0) printf "%.2fx", p / t; else print "-" }')
      [ "$precision" = fp32 ] || ratio="-"  # the Python loop runs fp32 only
      printf '%-18s %-9s %-6s %10s %12s %10s %16s\n' "$experiment" "$precision" "$repeat" "$t" "$accuracy" "$p" "$ratio"
    done
  done
done

for experiment in reuters_conv1d fashion_mnist_cnn; do
  echo
  echo "== host-side profile of 50 GPU steps"
  TRAINER=$trainer PYTHON=$python scripts/bench/step_profile.sh "$experiment" "$(nproc)" 50 --set devices=gpu:0 ||
    echo "profile of $experiment failed"
done
