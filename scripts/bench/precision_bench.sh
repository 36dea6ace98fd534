#!/usr/bin/env bash
# fp32 against bf16 (CPU autocast) for both reference experiments: seconds of
# the second epoch's training steps (the first is warm-up), its samples/s and
# the validation accuracy, on the first SAMPLES training samples (all of them:
# 0), fp32 and bf16 alternated REPEATS times; then, per experiment, the range
# over the repeats of bf16's speed over fp32's, pair by pair (bf16 is slow
# where the CPU has no native bf16: `trainer devices` says, and prints first).
# Last, the matrix-product benchmark in both types.
#
# Usage: scripts/bench/precision_bench.sh [SAMPLES] [REPEATS]
#   (after scripts/build.sh; Reuters needs TRAINER_DATA_DIR holding
#   reuters21578/, else only Fashion-MNIST runs)
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=scripts/lib/reference_run.sh
source scripts/lib/reference_run.sh
samples=${1:-2000}
repeats=${2:-1}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
limit=()
[ "$samples" = 0 ] || limit=(--set "data.max_train_samples=$samples")

build/trainer devices | sed -n '1,3p'
printf '%-10s %-6s %6s %9s %10s %10s\n' experiment type repeat "train s" samples/s "val acc"
for experiment in reuters_conv1d fashion_mnist_cnn; do
  if [ "$experiment" = reuters_conv1d ] && [ ! -d "$(reference_corpus)" ]; then
    echo "(no $(reference_corpus): Reuters skipped)"
    continue
  fi
  ratios=()
  for repeat in $(seq "$repeats"); do
    declare -A seconds=()
    for precision in fp32 bf16; do
      reference_run build/trainer "$experiment" "$out" "$precision-$repeat" --set train.epochs=2 \
        --set "precision=$precision" "${limit[@]}"
      read -r train rate accuracy <<<"$(scripts/bench/last_epoch.py \
        "$out/$experiment/$precision-$repeat/metrics.jsonl" train_seconds samples_per_second val_accuracy)"
      seconds[$precision]=$train
      printf '%-10s %-6s %6s %9.2f %10.0f %10.4f\n' "${experiment%%_*}" "$precision" "$repeat" "$train" "$rate" "$accuracy"
    done
    ratios+=("$(awk -v f="${seconds[fp32]}" -v b="${seconds[bf16]}" 'BEGIN { print f / b }')")
  done
  printf '%s\n' "${ratios[@]}" | sort -g | awk -v e="${experiment%%_*}" \
    '{ r[NR] = $1 } END { printf "%-10s bf16 speed / fp32: %.2f-%.2fx over %d pairs\n", e, r[1], r[NR], NR }'
done
for dtype in fp32 bf16; do
  build/trainer bench --dtype "$dtype" --shape 2000x100x20000 --repeat 3 | sed -n '3p' | sed "s/^/$dtype /"
done
