#!/usr/bin/env bash
# Rehearses a GPU lease on this CPU, so that a script error costs a minute
# here and not a lease: a lease is 15 minutes of a GPU that most sessions
# never draw, and one once lost a row of figures to a Python error in a
# peer loop that no CPU run had ever executed. It runs the lease's own
# scripts, as a lease runs them, with every run on the CPU and made small:
#
#   1. scripts/gpu-data.sh packs the data sets (Fashion-MNIST cut to 1,000
#      training images), unpacked here as a lease unpacks them;
#   2. scripts/gpu-lease.sh with LEASE_REHEARSAL=1 (this build's trainer,
#      no build, no tests), the GPU-bound rows a lease measures
#      (gpu_rows.sh: deblur, fused, biases, nhwc, kernels, datawait), the
#      epochs of the two small experiments against their Python loops
#      (gpu_peers.py on the CPU), and the deblurring goal as two trials
#      side by side, each with its report;
#   3. the goal alone on a photo archive that a later call brings
#      (GOAL_PHOTOS), as a goal-only lease runs it.
#
# The figures mean nothing (16-pixel patches, 3 timed steps, fp32 only:
# bf16 convolutions are emulated on most CPUs, 13 times slower). What is
# checked is that every step passed, that every table of figures has its
# rows with numbers in them, that no Python traceback, failed run or shell
# error is in any log, and that the goal runs left their metrics, samples
# and reports where the lease collects them. torch.compile is not
# rehearsed (the section needs PyTorch 2), nor the GPU's own code: the GPU
# tests and scripts/gpu-check.sh test that on the GPU.
#
# The two leases' logs are kept in BUILD/lease-rehearsal/{rows,goal}/ (as
# LOGS of scripts/gpu-lease.sh), replaced by the next rehearsal.
#
# Usage: scripts/check-lease-scripts.sh   (after scripts/build.sh)
# Needs /usr/bin/python3 with torch (Debian's python3-torch) and the photos
# of scripts/deblur-photos.sh (gathered here when missing). Reuters rows run
# where $TRAINER_DATA_DIR/reuters21578 is. Where python3-torch is missing
# and TRAINER_CHECK_IF_POSSIBLE=1 it says SKIPPED and succeeds.
set -euo pipefail
cd "$(dirname "$0")/.."
tool=check-lease-scripts
build_dir=${TRAINER_BUILD_DIR:-build}
python=/usr/bin/python3
start=$SECONDS

if ! "$python" -c 'import torch' 2>/dev/null; then
  if [ "${TRAINER_CHECK_IF_POSSIBLE:-0}" = 1 ]; then
    echo "$tool: SKIPPED: $python cannot import torch (Debian's python3-torch)"
    exit 0
  fi
  echo "$tool: $python cannot import torch (install python3-torch)" >&2
  exit 1
fi
[ -x "$build_dir/trainer" ] || { echo "$tool: no $build_dir/trainer (scripts/build.sh)" >&2; exit 1; }
[ -d data/deblur-photos/train ] || scripts/deblur-photos.sh data/deblur-photos

work=$(mktemp -d)
goal_runs=()
kept=$build_dir/lease-rehearsal
cleanup() {
  rm -rf "$kept"
  mkdir -p "$kept"
  for logs in rows goal; do
    [ -d "$work/$logs" ] && cp -r "$work/$logs" "$work/$logs.out" "$kept/" 2>/dev/null
  done
  rm -rf "$work"
  # deblur_goal.sh leaves its runs in runs/ for their reports; the goal-only
  # lease unpacks its photo archive into the build folder.
  [ "${#goal_runs[@]}" -eq 0 ] || rm -rf "${goal_runs[@]}"
  rm -rf "$build_dir/goal-photos"
}
trap cleanup EXIT

# 1. The data sets, packed and unpacked as a lease carries them.
scripts/gpu-data.sh --fashion-train 1000 "$work/data.tar.xz"
mkdir "$work/data"
tar -xJf "$work/data.tar.xz" -C "$work/data"
scripts/gpu-data.sh --only deblur-photos "$work/photos.tar.xz"

# Small and on the CPU: every run of the deblurring config (rows and goal).
small="--set data.patch_size=16 --set data.patches_per_image=2 --set data.validation_patches_per_image=2"
rehearse() {  # LOGS [VAR=VALUE ...]: one rehearsed lease, REPEATS 1
  local logs=$1
  shift
  env TRAINER_DATA_DIR="$work/data" TRAINER_BUILD_DIR="$build_dir" PYTHON="$python" LEASE_REHEARSAL=1 \
    PEERS_DEVICE=cpu PEERS_PATCH=16 GPU_ROWS_PRECISIONS=fp32 GPU_ROWS_STEPS=3 GPU_ROWS_DEBLUR_SETS="$small" \
    "$@" scripts/gpu-lease.sh "$logs" 1 >"$logs.out" 2>&1 || true
}

# 2. and 3.
rehearse "$work/rows" LEASE_ROWS=deblur,fused,biases,nhwc,kernels,datawait \
  GOAL_ARGS="$small --set train.epochs=2" GOAL_TRIALS="--set optimizer.lr=0.0005|--set optimizer.lr=0.001"
rehearse "$work/goal" LEASE_ROWS= LEASE_EPOCHS=0 GOAL_ARGS="$small --set train.epochs=2" \
  GOAL_PHOTOS="$work/photos.tar.xz" GOAL_PHOTOS_WAIT=5
for logs in "$work/rows" "$work/goal"; do
  mapfile -t -O "${#goal_runs[@]}" goal_runs < <(sed -n 's/^run directory: //p' "$logs"/*-goal.log | sort -u)
done

failures=()
fail() { failures+=("$*"); }

for logs in "$work/rows" "$work/goal"; do
  name=${logs##*/}
  [ -f "$logs/DONE" ] || fail "$name: the lease did not finish (no DONE)"
  grep -q . "$logs/progress.log" 2>/dev/null || fail "$name: no progress.log"
  while read -r line; do fail "$name: $line"; done < <(grep -E 'FAILED|no .*: nothing to measure' "$logs/progress.log")
  # Errors any log may show: Python's, the shell's, a run the rows reported failed.
  while read -r hit; do fail "$name: ${hit#"$logs"/}"; done < <(
    grep -H -n -E 'Traceback|[Ee]rror:|unbound variable|command not found|syntax error|No such file|(^|[^A-Za-z])failed([^A-Za-z]|$)' \
      "$logs"/*.log "$logs.out" 2>/dev/null | head -20)
done

# Every table the rows print has rows whose columns are numbers: the
# section's header line ("== ..."), then at least one line that starts as
# a table row of that section does and holds a number after its label.
expect_rows() {  # LOG SECTION-TITLE ROW-PATTERN
  local log=$1 title=$2 pattern=$3
  if [ ! -f "$log" ]; then fail "rows: no log for $title"; return; fi
  grep -q -F "$title" "$log" || fail "rows: ${log##*/} lacks its table ($title)"
  grep -q -E "$pattern" "$log" || fail "rows: ${log##*/} has no row of figures matching /$pattern/"
}
rows=$work/rows
number='[0-9]+\.[0-9]+'  # a figure; 0.0 where a GPU-only one has none on a CPU
positive='([1-9][0-9]*\.[0-9]+|0\.[0-9]*[1-9][0-9]*)'  # one that a CPU run must give
expect_rows "$(ls "$rows"/*-rows-deblur.log 2>/dev/null)" "== deblurring generator, batch 8 on cpu" \
  "^fp32 +1 +$positive +$number +$positive "
expect_rows "$(ls "$rows"/*-rows-fused.log 2>/dev/null)" "== fused kernels on cpu" "^deblur_resnet +fp32 +1 +$positive +$positive "
expect_rows "$(ls "$rows"/*-rows-biases.log 2>/dev/null)" "== cancelled biases on cpu" \
  "^deblur_resnet +fp32 +1 +$positive +$positive "
expect_rows "$(ls "$rows"/*-rows-nhwc.log 2>/dev/null)" "images/s of trainer bench FILE" \
  "^fp32 +1 +$positive +$number +$positive +$number +$positive "
expect_rows "$(ls "$rows"/*-rows-kernels.log 2>/dev/null)" "kernel by kernel" "Self CPU time total"
expect_rows "$(ls "$rows"/*-rows-datawait.log 2>/dev/null)" "the real deblurring run on cpu" \
  "^on_device auto +epoch $positive s, data wait $number s"
expect_rows "$(ls "$rows"/*-rows-epochs.log 2>/dev/null)" "== epoch on cpu" \
  "^fashion_mnist_cnn +fp32 +1 +$positive +$positive +$positive +$positive "
if [ -n "${TRAINER_DATA_DIR:-}" ] && [ -d "$TRAINER_DATA_DIR/reuters21578" ]; then
  expect_rows "$(ls "$rows"/*-rows-epochs.log 2>/dev/null)" "== epoch on cpu" \
    "^reuters_conv1d +fp32 +1 +$positive +$positive +$positive +$positive "
else
  echo "$tool: no \$TRAINER_DATA_DIR/reuters21578: the Reuters rows are not rehearsed"
fi

# The goal runs: each trial's records, samples and report where the lease collects them.
for run in "$rows/goal-run-1" "$rows/goal-run-2" "$work/goal/goal-run"; do
  [ -s "$run/metrics.jsonl" ] || fail "goal: no $run/metrics.jsonl"
  [ "$(wc -l <"$run/metrics.jsonl" 2>/dev/null || echo 0)" -eq 2 ] || fail "goal: $run/metrics.jsonl is not 2 epochs"
done
for report in "$rows/goal-report-1.html" "$rows/goal-report-2.html" "$work/goal/goal-report.html"; do
  [ -s "$report" ] || fail "goal: no report $report"
done
grep -q "gain over the baseline" "$work/goal"/*-goal.log || fail "goal: deblur_goal.sh printed no gain"
grep -q "goal: the photos of $work/photos.tar.xz" "$work/goal/progress.log" ||
  fail "goal: the goal-only lease did not train on GOAL_PHOTOS"

if [ "${#failures[@]}" -gt 0 ]; then
  echo "$tool: FAILED: ${#failures[@]} problems in the rehearsed lease:" >&2
  printf '  %s\n' "${failures[@]}" >&2
  for logs in "$work/rows" "$work/goal"; do
    echo "--- ${logs##*/}: progress.log" >&2
    cat "$logs/progress.log" >&2 2>/dev/null || true
  done
  exit 1
fi
echo "$tool: passed in $((SECONDS - start)) s: $(grep -c 'passed' "$rows/progress.log") and" \
  "$(grep -c 'passed' "$work/goal/progress.log") steps of two rehearsed leases on the CPU"
