#!/usr/bin/env bash
# Two trainer binaries on one experiment, alternated REPEATS times: the
# training seconds of the last epoch (the first is warm-up, from
# metrics.jsonl) and the process's peak resident memory (/usr/bin/time %M).
# For "did this change make it faster, or bigger": build the older commit in
# a worktree (git worktree add ../old COMMIT; cd ../old; scripts/build.sh)
# and compare its build/trainer with this one's.
#
# Usage: scripts/bench/binary_ab.sh OLD_TRAINER NEW_TRAINER [EXPERIMENT] [REPEATS] [THREADS] [EPOCHS]
#   EXPERIMENT: fashion_mnist_cnn (default) or reuters_conv1d (needs
#   TRAINER_DATA_DIR holding reuters21578/)
set -euo pipefail
[ $# -ge 2 ] || { sed -n '2,12p' "$0" >&2; exit 2; }
old=$(realpath "$1")
new=$(realpath "$2")
experiment=${3:-fashion_mnist_cnn}
repeats=${4:-3}
threads=${5:-$(nproc)}
epochs=${6:-2}
cd "$(dirname "$0")/../.."
for binary in "$old" "$new"; do [ -x "$binary" ] || { echo "binary_ab: $binary is not executable" >&2; exit 2; }; done
[ -x /usr/bin/time ] || { echo "binary_ab: needs /usr/bin/time (Debian package time)" >&2; exit 2; }
# shellcheck source=scripts/lib/reference_run.sh
source scripts/lib/reference_run.sh
require_reference_data binary_ab "$experiment"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

run() {  # binary name repeat -> "train_seconds peak_MiB"
  local reference_run_wrapper=(/usr/bin/time -f %M -o "$out/rss-$2-$3")
  reference_run "$1" "$experiment" "$out" "$2-$3" --set "cpu_threads=$threads" --set "train.epochs=$epochs"
  echo "$(scripts/bench/last_epoch.py "$out/$experiment/$2-$3/metrics.jsonl" train_seconds) $(($(cat "$out/rss-$2-$3") / 1024))"
}

echo "$experiment, $threads threads, epoch $epochs of $epochs; old: $old, new: $new"
printf '%-7s %18s %18s %14s\n' repeat "old: s, peak MiB" "new: s, peak MiB" "old s / new s"
for repeat in $(seq "$repeats"); do
  read -r old_s old_mib <<<"$(run "$old" old "$repeat")"
  read -r new_s new_mib <<<"$(run "$new" new "$repeat")"
  awk -v r="$repeat" -v os="$old_s" -v om="$old_mib" -v ns="$new_s" -v nm="$new_mib" \
    'BEGIN { printf "%-7s %10.2f s, %4d %10.2f s, %4d %13.2fx\n", r, os, om, ns, nm, os / ns }'
done
