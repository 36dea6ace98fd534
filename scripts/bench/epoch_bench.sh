#!/usr/bin/env bash
# Epoch time of both reference experiments, side by side in one run: trainer,
# the simplest hand-written LibTorch C++ loop (scripts/bench/minimal_loop.cpp,
# built here, not part of trainer) and the idiomatic PyTorch-in-Python loop
# (scripts/bench/pytorch_reference.py), on the same LibTorch (Debian's
# libtorch-dev and python3-torch), data, models, optimizers, batch sizes and
# thread count. The three run one after another, REPEATS times, so that a
# machine's slow minute falls on all of them. Figures are the training steps
# of the last epoch (the first is warm-up); ratios are taken within each
# repeat and shown as their range over the repeats.
#
# Usage: scripts/bench/epoch_bench.sh [THREADS] [EPOCHS] [REPEATS]
#   (after scripts/build.sh; Reuters needs TRAINER_DATA_DIR holding
#   reuters21578/, else only Fashion-MNIST runs)
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=scripts/lib/reference_run.sh
source scripts/lib/reference_run.sh
threads=${1:-$(nproc)}
epochs=${2:-2}
repeats=${3:-3}
corpus=$(reference_corpus)
# trainer runs OpenBLAS single-threaded under LibTorch's own threads
# (blas_threads: 1, docs/performance.md#blas); the reference loops get the
# same, else they would be measured oversubscribing the cores.
export OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-1}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

minimal=build/bench/minimal_loop
if [ ! -x "$minimal" ] || [ scripts/bench/minimal_loop.cpp -nt "$minimal" ]; then
  echo "building $minimal" >&2
  mkdir -p build/bench
  g++ -O2 -std=c++17 -I/usr/include/torch/csrc/api/include scripts/bench/minimal_loop.cpp \
    -o "$minimal" -ltorch -ltorch_cpu -lc10
fi

experiments=(fashion_mnist_cnn)
if [ -d "$corpus" ]; then experiments+=(reuters_conv1d); else echo "no $corpus: Reuters left out" >&2; fi

last_line() { tail -1 | awk '{print $2}'; }  # train seconds of the last epoch line

trainer_seconds() {  # $1 experiment, $2 repeat -> "train_seconds rest_of_epoch_share"
  reference_run build/trainer "$1" "$out/runs" "bench$2" --set "cpu_threads=$threads" --set "train.epochs=$epochs"
  # The training steps, and the share of the epoch spent outside them
  # (validation, the checkpoint, the logs).
  scripts/bench/last_epoch.py "$out/runs/$1/bench$2/metrics.jsonl" train_seconds epoch_seconds |
    awk '{ print $1, 1 - $1 / $2 }'
}

printf '%-9s %-7s %10s %10s %10s %12s %14s %11s\n' experiment repeat trainer "C++ loop" python "C++/trainer" \
  "python/trainer" "not steps"
for experiment in "${experiments[@]}"; do
  short=${experiment%%_*}
  /usr/bin/python3 scripts/bench/pytorch_reference.py dump "$short" "$out/$short" "$corpus"
  python_args=("$short" "$threads" "$epochs")
  [ "$short" = reuters ] && python_args+=("$corpus")
  for repeat in $(seq "$repeats"); do
    read -r t rest <<<"$(trainer_seconds "$experiment" "$repeat")"
    c=$("$minimal" "$short" "$out/$short" "$threads" "$epochs" | last_line)
    p=$(/usr/bin/python3 scripts/bench/pytorch_reference.py "${python_args[@]}" | last_line)
    echo "$short $repeat $t $c $p $rest" >>"$out/figures"
    awk -v n="$short" -v r="$repeat" -v t="$t" -v c="$c" -v p="$p" -v rest="$rest" \
      'BEGIN { printf "%-9s %-7s %10.2f %10.2f %10.2f %11.2fx %13.2fx %10.1f%%\n", n, r, t, c, p, c / t, p / t, 100 * rest }'
  done
done

echo
echo "ranges over $repeats repeats (seconds of the last epoch's training steps; ratio > 1: trainer faster)"
/usr/bin/python3 - "$out/figures" <<'EOF'
import sys
rows = [line.split() for line in open(sys.argv[1])]
for name in dict.fromkeys(r[0] for r in rows):
    mine = [[float(v) for v in r[2:]] for r in rows if r[0] == name]
    span = lambda values: "%.2f-%.2f" % (min(values), max(values))
    print("%-9s trainer %s s, C++ loop %s s, python %s s; C++/trainer %sx, python/trainer %sx;"
          " trainer's epoch outside the steps %s %%" % (
        name, span([m[0] for m in mine]), span([m[1] for m in mine]), span([m[2] for m in mine]),
        span([m[1] / m[0] for m in mine]), span([m[2] / m[0] for m in mine]), span([100 * m[3] for m in mine])))
EOF
