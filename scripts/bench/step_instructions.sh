#!/usr/bin/env bash
# Instructions the training thread executes in one epoch's training steps,
# counted by callgrind, for one or more trainer binaries on the same
# experiment. For "did this change make the CPU step slower" on a VM where
# wall time moves some 10 % from one call to the next and perf has no
# counters: the count is the same for the same binary, data and settings
# whatever else the machine runs (instructions, not cycles: cache misses and
# vector widths are not weighed). One intra-op thread, so that the count is
# the step's work and not OpenMP's spinning; only the thread that runs the
# loop is counted (the loader thread fills batches ahead of it).
#
# Usage: scripts/bench/step_instructions.sh EXPERIMENT STEPS TRAINER [TRAINER ...]
#   EXPERIMENT: fashion_mnist_cnn or reuters_conv1d (needs TRAINER_DATA_DIR
#   holding reuters21578/); STEPS: training steps counted (the epoch is cut
#   there by train.steps_per_epoch). The first binary is the reference of
#   the ratios. Build an older commit to compare in a worktree (git worktree
#   add ../old COMMIT; cd ../old; scripts/build.sh).
set -euo pipefail
[ $# -ge 3 ] || { sed -n '2,17p' "$0" >&2; exit 2; }
experiment=$1
steps=$2
shift 2
command -v valgrind >/dev/null || { echo "step_instructions: needs valgrind (Debian package valgrind)" >&2; exit 2; }
binaries=()
for binary in "$@"; do
  [ -x "$binary" ] || { echo "step_instructions: $binary is not executable" >&2; exit 2; }
  binaries+=("$(realpath "$binary")")
done
cd "$(dirname "$0")/../.."
# shellcheck source=scripts/lib/reference_run.sh
source scripts/lib/reference_run.sh
require_reference_data step_instructions "$experiment"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# The training loop's function in every build since the loop had a class of
# its own; its callees (steps, loader waits, meters, progress) are counted
# with it, validation and checkpoints are not.
loop_function='trainer::TrainingLoop::train_steps*'

count() {  # index binary -> instructions of the loop's thread
  local dir="$out/$1"
  mkdir -p "$dir"
  local reference_run_wrapper=(valgrind --tool=callgrind --separate-threads=yes --collect-atstart=no
    --toggle-collect="$loop_function" --callgrind-out-file="$dir/callgrind.%p")
  reference_run "$2" "$experiment" "$dir/logs" count --set cpu_threads=1 --set train.epochs=1 \
    --set "train.steps_per_epoch=$steps" --set data.max_valid_samples=100 2>"$dir/valgrind.log" ||
    { echo "step_instructions: $2 failed under valgrind; its log:" >&2; tail -20 "$dir/valgrind.log" >&2; exit 1; }
  # One file a thread; the loop's thread is the one with events collected.
  local most=0 file instructions
  for file in "$dir"/callgrind.*; do
    instructions=$(awk '/^(summary|totals):/ { print $2; exit }' "$file")
    [ "${instructions:-0}" -gt "$most" ] && most=$instructions
  done
  [ "$most" -gt 0 ] || { echo "step_instructions: nothing counted in $loop_function for $2 (inlined?)" >&2; exit 1; }
  echo "$most"
}

echo "$experiment, $steps training steps, 1 thread, instructions of the training loop's thread (callgrind)"
printf '%-10s %16s %14s %10s  %s\n' binary instructions "a step" "÷ first" path
reference=
for index in "${!binaries[@]}"; do
  instructions=$(count "$index" "${binaries[$index]}")
  reference=${reference:-$instructions}
  awk -v i="$index" -v n="$instructions" -v s="$steps" -v r="$reference" -v p="${binaries[$index]}" \
    'BEGIN { printf "%-10s %16.0f %14.0f %9.4fx  %s\n", i + 1, n, n / s, n / r, p }'
done
