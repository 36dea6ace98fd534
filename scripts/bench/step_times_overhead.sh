#!/usr/bin/env bash
# The cost of timing every training step's phases (log.step_times, on by
# default): the second epoch's training seconds with the timing on and off,
# run in alternation REPEATS times, as the ratio on/off per repeat and its
# range. Two workloads: the Fashion-MNIST CNN on its first SAMPLES images
# (a real step, ~10 ms on 2 cores) and a tiny synthetic MLP whose steps take
# well under a millisecond (the worst case: the same clock reads, far less
# work). The TensorBoard writer is off in both, so only the timing differs.
#
# Usage: scripts/bench/step_times_overhead.sh [REPEATS] [SAMPLES]   (after scripts/build.sh)
set -euo pipefail
cd "$(dirname "$0")/../.."
repeats=${1:-5}
samples=${2:-6000}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

cat >"$out/tiny.yaml" <<'YAML'
experiment: {name: tiny}
data: {dataset: synthetic, synthetic: {train_samples: 32000, valid_samples: 64, shape: [32], classes: 4}}
model:
  layers:
    - {type: dense, units: 64, activation: relu}
    - {type: dense, units: classes}
loss: {from_logits: true}
train: {epochs: 2, batch_size: 32}
YAML

train_seconds() {  # METRICS_JSONL: the last epoch's training seconds
  scripts/bench/last_epoch.py "$1" train_seconds
}

build/trainer devices | sed -n '1,2p'
for workload in fashion_mnist_cnn tiny; do
  config=configs/fashion_mnist_cnn.yaml extra=(--set "data.max_train_samples=$samples")
  [ "$workload" = tiny ] && config=$out/tiny.yaml extra=()
  ratios=()
  for ((r = 1; r <= repeats; r++)); do
    declare -A seconds=()
    for timing in true false; do
      build/trainer run "$config" --quiet --log-level warn --set train.epochs=2 --set log.tensorboard=false \
        --set "log.step_times=$timing" --set "log.dir=$out/runs" --set "log.run_name=$workload-$r-$timing" \
        "${extra[@]}" >/dev/null
      seconds[$timing]=$(train_seconds "$out/runs/"*/"$workload-$r-$timing/metrics.jsonl")
    done
    ratio=$(/usr/bin/python3 -c "print('%.4f' % (${seconds[true]} / ${seconds[false]}))")
    printf '%-18s repeat %d: timed %.3f s, untimed %.3f s, ratio %s\n' "$workload" "$r" "${seconds[true]}" \
      "${seconds[false]}" "$ratio"
    ratios+=("$ratio")
  done
  printf '%-18s timed/untimed over %d repeats: %s to %s (median %s)\n' "$workload" "$repeats" \
    "$(printf '%s\n' "${ratios[@]}" | sort -n | head -1)" "$(printf '%s\n' "${ratios[@]}" | sort -n | tail -1)" \
    "$(printf '%s\n' "${ratios[@]}" | sort -n | sed -n "$(((repeats + 1) / 2))p")"
done
