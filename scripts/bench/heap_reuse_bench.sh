#!/usr/bin/env bash
# What keeping freed memory in the process (util/heap_reuse.h) gains: the
# training step of each reference experiment timed by `trainer bench`, with
# glibc's malloc defaults (TRAINER_MALLOC_DEFAULTS=1) and with trainer's,
# alternated REPEATS times; prints steps/s of each and their ratio, and the
# range of the ratios.
#
# Usage: scripts/bench/heap_reuse_bench.sh [REPEATS] [STEPS]
#   (after scripts/build.sh; TRAINER_DATA_DIR holding reuters21578/ for the
#   Reuters experiments, which are left out without it). STEPS: the steps of
#   every timing; by default each experiment's own, a few seconds of its
#   steps, since a timing of a fraction of a second is mostly noise.
set -euo pipefail
cd "$(dirname "$0")/../.."
repeats=${1:-3}
fixed_steps=${2:-}
declare -A steps=([fashion_mnist_cnn]=200 [reuters_conv1d]=400 [reuters_lstm]=30 [reuters_transformer]=30)
configs=(configs/fashion_mnist_cnn.yaml)
if [ -d "${TRAINER_DATA_DIR:-}/reuters21578" ]; then
  configs+=(configs/reuters_conv1d.yaml configs/reuters_lstm.yaml configs/reuters_transformer.yaml)
else
  echo "no \$TRAINER_DATA_DIR/reuters21578: the Reuters experiments are left out"
fi

steps_per_second() {  # CONFIG DEFAULTS(0|1)
  local name
  name=$(basename "$1" .yaml)
  TRAINER_MALLOC_DEFAULTS=$2 build/trainer bench "$1" --steps "${fixed_steps:-${steps[$name]}}" --quiet --log-level warn |
    sed -n 's/^steps\/s \([0-9.]*\),.*/\1/p'
}

printf '%-32s %6s %14s %14s %7s\n' experiment repeat "glibc steps/s" "reuse steps/s" ratio
for config in "${configs[@]}"; do
  ratios=()
  for ((i = 1; i <= repeats; ++i)); do
    plain=$(steps_per_second "$config" 1)
    reuse=$(steps_per_second "$config" 0)
    ratio=$(awk -v a="$reuse" -v b="$plain" 'BEGIN { printf "%.2f", a / b }')
    ratios+=("$ratio")
    printf '%-32s %6d %14s %14s %7s\n' "$(basename "$config" .yaml)" "$i" "$plain" "$reuse" "$ratio"
  done
  printf '%-32s ratio %s to %s\n' "$(basename "$config" .yaml)" \
    "$(printf '%s\n' "${ratios[@]}" | sort -n | head -1)" "$(printf '%s\n' "${ratios[@]}" | sort -n | tail -1)"
done
