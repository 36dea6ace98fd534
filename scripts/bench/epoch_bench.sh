#!/usr/bin/env bash
# Epoch time of both reference experiments: trainer against the idiomatic
# PyTorch-in-Python loop (scripts/bench/pytorch_reference.py) on the same
# LibTorch (Debian's python3-torch), data, batch size and thread count.
# The first epoch is warm-up; the figures are of the last one.
#
# Usage: scripts/bench/epoch_bench.sh [THREADS] [EPOCHS]   (after scripts/build.sh; needs TRAINER_DATA_DIR holding reuters21578/)
set -euo pipefail
cd "$(dirname "$0")/../.."
threads=${1:-$(nproc)}
epochs=${2:-2}
corpus=${TRAINER_DATA_DIR:-}/reuters21578
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

last_epoch() {  # figures of the last metrics.jsonl line
  /usr/bin/python3 -c '
import json, sys
m = [json.loads(l) for l in open(sys.argv[1])][-1]
print("%9.2f %10.0f %9.2f%%  loss %.4f" % (m["train_seconds"], m["samples_per_second"], 100 * m["data_wait_fraction"], m["loss"]))
' "$1"
}

printf '%-15s %-15s %9s %10s %10s\n' experiment tool "train s" samples/s "data wait"
for experiment in fashion_mnist_cnn reuters_conv1d; do
  extra=()
  [ "$experiment" = reuters_conv1d ] && extra=(--set "data.path=$corpus")
  build/trainer run "configs/$experiment.yaml" --quiet --log-level warn --set "cpu_threads=$threads" \
    --set "train.epochs=$epochs" --set "log.dir=$out" --set log.run_name=bench "${extra[@]}" >/dev/null
  printf '%-15s %-15s %s\n' "${experiment%%_*}" trainer "$(last_epoch "$out/$experiment/bench/metrics.jsonl")"

  if [ "$experiment" = fashion_mnist_cnn ]; then
    reference=$(/usr/bin/python3 scripts/bench/pytorch_reference.py fashion "$threads" "$epochs" | tail -1)
  else
    reference=$(/usr/bin/python3 scripts/bench/pytorch_reference.py reuters "$threads" "$epochs" "$corpus" | tail -1)
  fi
  read -r _ seconds rate loss <<<"$reference"
  printf '%-15s %-15s %9.2f %10.0f %10s  loss %.4f\n' "${experiment%%_*}" pytorch-python "$seconds" "$rate" "-" "$loss"
done
