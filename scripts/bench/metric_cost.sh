#!/usr/bin/env bash
# What the image metrics cost a training epoch: the small deblurring
# config's first epoch with its metrics (psnr and ssim, computed on every
# training batch and on the held-out patches) and with none (the loss
# alone), alternated REPEATS times on the same machine; prints the
# training seconds of each (metrics.jsonl) and their ratio. The metrics
# touch neither the loss nor the weights, so the ratio is their price.
# Run it with two builds (TRAINER=old/build/trainer, then the new one) to
# see what a change to the metrics saved.
#
# Usage: scripts/bench/metric_cost.sh [REPEATS] [--set KEY=VALUE ...]
#   needs the photos of scripts/deblur-photos.sh in data/deblur-photos;
#   TRAINER=PATH: the trainer binary (default build/trainer)
set -euo pipefail
cd "$(dirname "$0")/../.."
repeats=${1:-3}
shift $(($# < 1 ? $# : 1))
trainer=${TRAINER:-build/trainer}
[ -d data/deblur-photos/train ] || { echo "metric_cost: no data/deblur-photos (run scripts/deblur-photos.sh data/deblur-photos)" >&2; exit 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

run() {  # NAME METRICS REPEAT [--set ...] -> training seconds of the epoch
  "$trainer" run configs/deblur_resnet_small.yaml --quiet --log-level warn --set train.epochs=1 \
    --set "metrics=$2" --set log.tensorboard=false --set "log.dir=$out" --set "log.run_name=$1-$3" "${@:4}" \
    >/dev/null
  scripts/bench/last_epoch.py "$out/deblur_resnet_small/$1-$3/metrics.jsonl" train_seconds
}

echo "deblur_resnet_small.yaml, epoch 1 of 1, $trainer"
printf '%-7s %16s %16s %14s\n' repeat "psnr, ssim: s" "none: s" "metrics / none"
for repeat in $(seq "$repeats"); do
  with=$(run metrics "[psnr, ssim]" "$repeat" "$@")
  without=$(run none "[]" "$repeat" "$@")
  awk -v r="$repeat" -v a="$with" -v b="$without" 'BEGIN { printf "%-7s %16.2f %16.2f %13.2fx\n", r, a, b, a / b }'
done
