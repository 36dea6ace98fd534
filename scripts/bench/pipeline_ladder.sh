#!/usr/bin/env bash
# The deblurring tutorial's ladder, measured: the deblurring experiment for a
# fixed number of steps, each rung adding one thing to the one before:
#   1 decode   every sample's photo decoded on each use, one thread, no cache
#   2 cached   data.workers threads, the memory cache, prefetch
#   3 mixed    plus mixed precision (bf16 on a CPU, fp16 on a GPU)
#   4 2 ranks  plus a second rank (two processes on the CPU; two GPUs over
#              NCCL, or on a machine with one GPU two ranks sharing it,
#              gpu:0,0, their gradients reduced through Gloo: the
#              tutorial's two logical GPUs carved from one)
#   5 degrade  on a GPU only: plus the blurs and noise applied on the GPU to
#              windows cut on the CPU (data.degrade.on_device: true; rungs 1
#              to 4 degrade on the CPU, as the tutorial's pipeline did)
#   6 graphs   on a GPU only: rung 5 on one rank, each training step replayed
#              as one CUDA graph (train.cuda_graph: on; rungs 1 to 5 run
#              eager steps, cuda_graph off, so that the graph is a rung of
#              its own). One rank: the ranks' gradients are reduced between
#              steps, outside a graph, so rung 6 is to be read against rung
#              3, the last one-rank rung, as much as against rung 5.
# The rungs alternate REPEATS times; for each rung it prints the epoch time,
# samples/s and the share of the training time spent waiting for data, of
# the last epoch of every repeat (the first epoch pays for decoding into the
# cache), and the range over the repeats.
#
# Usage: scripts/bench/pipeline_ladder.sh [--config FILE] [--device cpu|gpu]
#            [--repeats R] [--epochs E] [--patches P]
#   --config   default configs/deblur_resnet_small.yaml (run
#              scripts/deblur-photos.sh data/deblur-photos first)
#   --device   cpu (default; rung 4: devices [cpu, cpu]) or gpu (gpu:0;
#              rung 4: gpu:0,1, or gpu:0,0 where there is one GPU)
#   --patches  data.patches_per_image: the steps per epoch (default 4: 88
#              patches of the 22 training photos, 11 steps of 8)
# After scripts/build.sh (TRAINER=PATH for another build, build-gpu/trainer on
# the GPU machine). Prints figures; asserts nothing.
set -euo pipefail
cd "$(dirname "$0")/../.."
config=configs/deblur_resnet_small.yaml device=cpu repeats=2 epochs=2 patches=4
trainer=${TRAINER:-build/trainer}
while [ $# -gt 0 ]; do
  case "$1" in
    --config) config=$2; shift 2 ;;
    --device) device=$2; shift 2 ;;
    --repeats) repeats=$2; shift 2 ;;
    --epochs) epochs=$2; shift 2 ;;
    --patches) patches=$2; shift 2 ;;
    *) echo "usage: $0 [--config FILE] [--device cpu|gpu] [--repeats R] [--epochs E] [--patches P]" >&2; exit 2 ;;
  esac
done
if [ "$device" = gpu ]; then one=gpu:0 two=gpu:0,1; else one=cpu two="[cpu,cpu]"; fi
workers=$(( $(nproc) < 4 ? $(nproc) : 4 ))
rungs=("1 decode" "2 cached" "3 mixed" "4 2 ranks" "5 degrade" "6 graphs")
ladder=(1 2 3 4)
degrade="data.degrade.on_device=false"
eager=""
note=""
if [ "$device" = gpu ]; then
  gpus=$("$trainer" devices --json | python3 -c 'import json, sys; print(len(json.load(sys.stdin)["gpus"]))')
  if [ "$gpus" -lt 2 ]; then
    two=gpu:0,0
    rungs[3]="4 2 ranks, 1 GPU"
    note="one GPU here: rung 4's two ranks share gpu:0 (gpu:0,0), their gradients reduced through Gloo"
  fi
  ladder=(1 2 3 4 5 6)
  eager="train.cuda_graph=off"
fi
rung_settings() {  # RUNG: the --set arguments of that rung
  case "$1" in
    1) echo "data.workers=1 data.cache=none data.prefetch=1 devices=$one $degrade $eager" ;;
    2) echo "data.workers=$workers data.cache=memory data.prefetch=4 devices=$one $degrade $eager" ;;
    3) echo "data.workers=$workers data.cache=memory data.prefetch=4 mixed_precision=true devices=$one $degrade $eager" ;;
    4) echo "data.workers=$workers data.cache=memory data.prefetch=4 mixed_precision=true devices=$two $degrade $eager" ;;
    5) echo "data.workers=$workers data.cache=memory data.prefetch=4 mixed_precision=true devices=$two data.degrade.on_device=true $eager" ;;
    6) echo "data.workers=$workers data.cache=memory data.prefetch=4 mixed_precision=true devices=$one data.degrade.on_device=true train.cuda_graph=on" ;;
  esac
}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# One run of a rung; prints "epoch_seconds samples_per_second wait_share" of its last epoch.
measure() {  # RUNG REPEAT
  local dir="$work/rung$1-$2" sets=()
  for s in $(rung_settings "$1") train.epochs=$epochs data.patches_per_image=$patches; do sets+=(--set "$s"); done
  if ! "$trainer" run "$config" "${sets[@]}" --run-dir "$dir" --quiet --log-level warn >"$work/out" 2>"$work/err"; then
    echo "pipeline_ladder: rung $1 failed:" >&2
    tail -5 "$work/err" >&2
    exit 1
  fi
  tail -1 "$dir/metrics.jsonl" | python3 -c '
import json, sys
r = json.loads(sys.stdin.read())
print("%.2f %.1f %.1f" % (r["epoch_seconds"], r["samples_per_second"], 100 * r["data_wait_seconds"] / r["train_seconds"]))'
}

declare -A results
echo "pipeline ladder: $config on $device, $epochs epochs of $patches patches per photo, $repeats repeats; last epoch of each"
[ -z "$note" ] || echo "$note"
printf '%-10s %6s %10s %10s %10s\n' rung repeat "epoch s" samples/s "data wait"
for ((r = 1; r <= repeats; ++r)); do
  for rung in "${ladder[@]}"; do
    read -r seconds rate wait < <(measure "$rung" "$r")
    results[$rung]+="$seconds $rate $wait;"
    printf '%-10s %6d %10s %10s %9s%%\n' "${rungs[$((rung - 1))]}" "$r" "$seconds" "$rate" "$wait"
  done
done
echo "ranges over the repeats (epoch s, samples/s, data wait %; samples/s relative to rung 1):"
base=$(echo "${results[1]}" | tr ';' '\n' | awk 'NF { s += $2; n++ } END { print s / n }')
for rung in "${ladder[@]}"; do
  echo "${results[$rung]}" | tr ';' '\n' | awk -v name="${rungs[$((rung - 1))]}" -v base="$base" '
    NF { if (n == 0 || $1 < t0) t0 = $1; if (n == 0 || $1 > t1) t1 = $1
         if (n == 0 || $2 < r0) r0 = $2; if (n == 0 || $2 > r1) r1 = $2
         if (n == 0 || $3 < w0) w0 = $3; if (n == 0 || $3 > w1) w1 = $3; n++ }
    END { printf "%-10s %s-%s s  %s-%s samples/s (x%.2f-%.2f)  wait %s-%s%%\n", name, t0, t1, r0, r1, r0 / base, r1 / base, w0, w1 }'
done
