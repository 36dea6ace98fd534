#!/usr/bin/env bash
# Does bf16 (CPU autocast) reach the fp32 accuracy of the Reuters reference
# experiment, within seed noise? Full-length runs of configs/reuters_conv1d.yaml:
# fp32 under SEEDS seeds (the noise), bf16 under the first of them; prints the
# final validation accuracy, top-5 and loss of each, and seconds per epoch.
# bf16 is emulated (slow) on CPUs without AVX-512-BF16: `trainer devices`.
#
# Usage: scripts/bench/bf16_accuracy.sh [SEEDS]   (after scripts/build.sh; needs TRAINER_DATA_DIR holding reuters21578/)
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=scripts/lib/reference_run.sh
source scripts/lib/reference_run.sh
seeds=${1:-3}
require_reference_data bf16_accuracy reuters_conv1d
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

build/trainer devices | sed -n '1,3p'
printf '%-6s %5s %9s %9s %9s %10s\n' type seed "val acc" "val top5" "val loss" "s/epoch"
run() {  # precision seed
  reference_run build/trainer reuters_conv1d "$out" "$1-$2" --set "precision=$1" --set "experiment.seed=$2"
  /usr/bin/python3 -c '
import json, sys
records = [json.loads(l) for l in open(sys.argv[1])]
m = records[-1]
seconds = sum(r["epoch_seconds"] for r in records) / len(records)
print("%-6s %5s %9.4f %9.4f %9.4f %10.2f" % (sys.argv[2], sys.argv[3], m["val_accuracy"], m["val_top5_accuracy"], m["val_loss"], seconds))
' "$out/reuters_conv1d/$1-$2/metrics.jsonl" "$1" "$2"
}
for ((i = 0; i < seeds; ++i)); do run fp32 $((42 + i)); done
run bf16 42
