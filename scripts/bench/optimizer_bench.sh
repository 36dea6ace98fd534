#!/usr/bin/env bash
# The fused NAdam pass against NAdam's tensor operations (optimizer.fused),
# on the Reuters Conv1D reference (NAdam, batch 32), alternated REPEATS
# times: the optimizer's share of the step and the training time of the
# last epoch (the first is warm-up), from metrics.jsonl.
#
# Usage: scripts/bench/optimizer_bench.sh [THREADS] [REPEATS] [EPOCHS]
#   (after scripts/build.sh; needs TRAINER_DATA_DIR holding reuters21578/)
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=scripts/lib/reference_run.sh
source scripts/lib/reference_run.sh
threads=${1:-$(nproc)}
repeats=${2:-3}
epochs=${3:-2}
require_reference_data optimizer_bench reuters_conv1d
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

run() {  # fused(true|false) repeat -> "train_seconds optimizer_share"
  reference_run build/trainer reuters_conv1d "$out" "$1-$2" --set "cpu_threads=$threads" \
    --set "train.epochs=$epochs" --set "optimizer.fused=$1"
  scripts/bench/last_epoch.py "$out/reuters_conv1d/$1-$2/metrics.jsonl" train_seconds optimizer_seconds/train_seconds
}

printf '%-7s %22s %22s %10s\n' repeat "tensor ops: s, optimizer" "fused: s, optimizer" speed-up
for repeat in $(seq "$repeats"); do
  read -r plain_s plain_share <<<"$(run false "$repeat")"
  read -r fused_s fused_share <<<"$(run true "$repeat")"
  awk -v r="$repeat" -v ps="$plain_s" -v pf="$plain_share" -v fs="$fused_s" -v ff="$fused_share" \
    'BEGIN { printf "%-7s %12.2f s, %5.1f %% %12.2f s, %5.1f %% %9.2fx\n", r, ps, 100 * pf, fs, 100 * ff, ps / fs }'
done
