#!/usr/bin/env bash
# Data-parallel throughput on this machine's CPUs: the Reuters Conv1D model at
# one global batch (32), trained
#   - by trainer in 1 process with 2 threads,
#   - by trainer as 2 ranks x 1 thread x batch 16 (Gloo, bucketed all-reduce
#     overlapped with backward),
#   - by PyTorch's Python DDP as 2 ranks x 1 thread x batch 16 (the reference,
#     scripts/bench/pytorch_ddp_reference.py, Debian's python3-torch),
# and prints samples/s of the last epoch (the first is warm-up) and, for
# trainer's ranks, the share of training time spent waiting for the
# all-reduce (what backward did not hide).
#
# Usage: scripts/bench/ddp_bench.sh [EPOCHS]   (after scripts/build.sh; needs TRAINER_DATA_DIR holding reuters21578/)
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=scripts/lib/reference_run.sh
source scripts/lib/reference_run.sh
epochs=${1:-2}
require_reference_data ddp_bench reuters_conv1d
corpus=$(reference_corpus)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

last_epoch() {  # samples/s and train seconds of the last metrics.jsonl line
  scripts/bench/last_epoch.py "$1" samples_per_second train_seconds loss |
    awk '{ printf "%10.0f %9.2f  loss %.4f\n", $1, $2, $3 }'
}

allreduce_share() {  # the last epoch's wait for the all-reduce, as a share of training (log.step_times)
  scripts/bench/last_epoch.py "$1" all_reduce_seconds/train_seconds | awk '{ printf "%.1f%%", 100 * $1 }'
}

run_trainer() {  # name, then extra arguments
  local name=$1
  shift
  reference_run build/trainer reuters_conv1d "$out" "$name" --set "train.epochs=$epochs" "$@"
}

printf '%-34s %10s %9s\n' "run (global batch 32)" samples/s "train s"
run_trainer one --set cpu_threads=2 --set train.batch_size=32
printf '%-34s %s\n' "trainer 1 process x 2 threads" "$(last_epoch "$out/reuters_conv1d/one/metrics.jsonl")"
run_trainer two --devices cpu,cpu --set cpu_threads=1 --set train.batch_size=16
printf '%-34s %s  all-reduce wait %s\n' "trainer 2 ranks x 1 thread" \
  "$(last_epoch "$out/reuters_conv1d/two/metrics.jsonl")" "$(allreduce_share "$out/reuters_conv1d/two/metrics.jsonl")"
read -r _ seconds rate loss <<<"$(/usr/bin/python3 scripts/bench/pytorch_ddp_reference.py 2 1 16 "$epochs" "$corpus" | tail -1)"
printf '%-34s %10.0f %9.2f  loss %.4f\n' "pytorch DDP 2 ranks x 1 thread" "$rate" "$seconds" "$loss"
read -r _ seconds rate loss <<<"$(/usr/bin/python3 scripts/bench/pytorch_reference.py reuters 2 "$epochs" "$corpus" | tail -1)"
printf '%-34s %10.0f %9.2f  loss %.4f\n' "pytorch 1 process x 2 threads" "$rate" "$seconds" "$loss"
