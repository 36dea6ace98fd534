#!/usr/bin/env bash
# fp32 against bf16 (CPU autocast) for both reference experiments: seconds per
# training epoch and samples/s of the second epoch (the first is warm-up),
# on the first SAMPLES training samples (bf16 is slow where the CPU has no
# native bf16: `trainer devices` says). Also the matrix-product benchmark in
# both types against the CPU's estimated peak.
#
# Usage: scripts/bench/precision_bench.sh [SAMPLES]   (after scripts/build.sh; Reuters needs TRAINER_DATA_DIR holding reuters21578/)
set -euo pipefail
cd "$(dirname "$0")/../.."
samples=${1:-2000}
corpus=${TRAINER_DATA_DIR:-}/reuters21578
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

build/trainer devices | sed -n '1,3p'
printf '%-10s %-6s %9s %10s %10s\n' experiment type "train s" samples/s "val acc"
for experiment in reuters_conv1d fashion_mnist_cnn; do
  extra=()
  if [ "$experiment" = reuters_conv1d ]; then
    [ -d "$corpus" ] || { echo "(no $corpus: Reuters skipped)"; continue; }
    extra=(--set "data.path=$corpus")
  fi
  for precision in fp32 bf16; do
    build/trainer run "configs/$experiment.yaml" --quiet --log-level warn --set train.epochs=2 \
      --set "data.max_train_samples=$samples" --set "precision=$precision" --set "log.dir=$out" \
      --set "log.run_name=$precision" "${extra[@]}" >/dev/null
    /usr/bin/python3 -c '
import json, sys
m = [json.loads(l) for l in open(sys.argv[1])][-1]
print("%-10s %-6s %9.2f %10.0f %10.4f" % (sys.argv[2], sys.argv[3], m["train_seconds"], m["samples_per_second"], m["val_accuracy"]))
' "$out/$experiment/$precision/metrics.jsonl" "${experiment%%_*}" "$precision"
  done
done
for dtype in fp32 bf16; do
  build/trainer bench --dtype "$dtype" --shape 2000x100x20000 --repeat 3 | sed -n '3p' | sed "s/^/$dtype /"
done
