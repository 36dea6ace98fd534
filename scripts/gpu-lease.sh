#!/usr/bin/env bash
# The GPU check for a short lease (15 minutes of device time, the machine's
# start included): scripts/gpu-check.sh's build, then the figures the open
# GPU goals need and the GPU tests, in the order that keeps the GPU busy and
# the timings clean:
#   1. trainer built as the GPU check builds it (--build-only), and that
#      build's step times replayed in both build tools' orders;
#   2. the tests built in the background, at the lowest CPU priority, while
#      the GPU measures the rows that are bound by the GPU (gpu_rows.sh
#      sections, LEASE_ROWS; default deblur,nhwc,datawait: the
#      deblurring generator against the eager Python loop, channels-last
#      with trainer's kernels against the defaults, the real run's data
#      wait and the GPU's idle time for it; kernels (the step's kernels
#      profiled, about a minute), fused, biases and compile may be added: with all
#      of it a 15-minute lease, the machine's start included, runs out);
#   3. the epochs of the two small experiments against the eager Python loop
#      (gpu_rows.sh epochs), alone on the machine once the tests are built:
#      they are bound by the host;
#   4. the full deblurring config trained as shipped (deblur_goal.sh, plus
#      GOAL_ARGS, e.g. "--set optimizer.lr=0.0005 --set train.epochs=100")
#      with the GPU tests beside it: neither is a timing. GOAL_TRIALS="A|B"
#      trains one run per |-separated list of --set options (each after
#      GOAL_ARGS) at the same time on the GPU, so that one lease compares
#      two or three settings; each is slower for sharing the GPU, which
#      only makes its training time an upper bound;
#   5. with LEASE_LADDER=1, the deblurring tutorial's ladder on the full
#      config (pipeline_ladder.sh --device gpu).
# A lease given to the goal's training alone (a longer trial than fits
# beside the rows): LEASE_ROWS= LEASE_EPOCHS=0 GOAL_ARGS="--set
# train.epochs=300 ...". The goal then starts as soon as trainer is built,
# the tests building beside it (at the lowest priority) and then running.
# GOAL_PHOTOS=ARCHIVE: the goal trains on the photos of that archive
# (scripts/gpu-data.sh --only deblur-photos --photos DIR), which a later
# call may bring (one call cannot carry the larger photo set beside the
# bundle and the other data sets): the goal waits for the file up to
# GOAL_PHOTOS_WAIT seconds (default 240; the archive must appear whole, by
# a rename), and trains on the base set, saying so, when it does not come.
# Each step's output goes to LOGS/NN-name.log and its start and end to
# LOGS/progress.log; each goal run's small files (run.json, metrics.jsonl,
# samples) to LOGS/goal-run/ and its report to LOGS/goal-report.html (with
# GOAL_TRIALS: goal-run-N/ and goal-report-N.html, N from 1 in the order
# given), and while it trains its metrics.jsonl and run.json to
# LOGS/goal-live[-N]/ every 10 s. LOGS/DONE marks the end. A lease that ends
# early keeps what finished: start it with setsid and copy LOGS out while it
# runs (docs/development.md says how).
# LEASE_REHEARSAL=1 rehearses all of it but the GPU on a CPU
# (scripts/check-lease-scripts.sh, before a lease): no build and no tests,
# the trainer of TRAINER_BUILD_DIR (default build), every run on the CPU
# (gpu_rows.sh's GPU_ROWS_* say how small); a script that fails there
# would have failed on the GPU.
#
# Usage: scripts/gpu-lease.sh [LOGS] [REPEATS]   (defaults build-gpu/lease 2)
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
logs=${1:-build-gpu/lease}
repeats=${2:-2}
python=${PYTHON:-python3}
rehearsal=${LEASE_REHEARSAL:-0}
build_dir=build-gpu
device=gpu:0
if [ "$rehearsal" = 1 ]; then
  build_dir=${TRAINER_BUILD_DIR:-build}
  device=cpu
  export GPU_ROWS_DEVICE=cpu
fi
trainer=$build_dir/trainer
mkdir -p "$logs"
logs=$(cd "$logs" && pwd)
rm -f "$logs/DONE"
# shellcheck source=scripts/lib/step_logs.sh
source scripts/lib/step_logs.sh

note() { echo "[$(date +%T) +${SECONDS}s] $*" | tee -a "$logs/progress.log"; }

# step NAME COMMAND...: runs it into LOGS/NN-NAME.log, its outcome into progress.log.
step() {
  local name=$1; shift
  next_step_log "$name"
  local log=$step_log
  note "$name: started"
  local start=$SECONDS
  if "$@" >"$log" 2>&1; then
    note "$name: passed ($((SECONDS - start)) s)"
  else
    note "$name: FAILED ($((SECONDS - start)) s; $log)"
  fi
}

if [ "$rehearsal" = 1 ]; then
  note "rehearsal on the CPU: no build, $trainer"
else
  step build scripts/gpu-check.sh --build-only --python "$python" --logs "$logs/check"
fi
# The build's own step times replayed in Ninja's order and in the Makefiles'
# (scripts/lib/cmake_generator.sh), a second's work: what the build tool saved.
if [ -f "$build_dir/.ninja_log" ]; then
  step build-order "$python" scripts/bench/build_makespan.py "$build_dir" "$(nproc)"
fi
if [ ! -x "$trainer" ]; then
  note "no $trainer: nothing to measure"
  touch "$logs/DONE"
  exit 1
fi
# gpu-check.sh unpacked the data sets there; its own environment is gone.
if [ -z "${TRAINER_DATA_DIR:-}" ] && [ -d build-gpu/data ]; then export TRAINER_DATA_DIR=$PWD/build-gpu/data; fi
step devices "$trainer" devices
if command -v nvidia-smi >/dev/null; then nvidia-smi >"$logs/nvidia-smi.txt" 2>&1; fi

tests_build=""
if [ "$rehearsal" = 1 ]; then
  note "build-tests: left out (rehearsal)"
else
  next_step_log build-tests
  tests_log=$step_log
  note "build-tests: started in the background (nice 19)"
  nice -n 19 cmake --build build-gpu -j"$(nproc)" >"$tests_log" 2>&1 &
  tests_build=$!
fi

rows() { GPU_ROWS=$1 scripts/bench/gpu_rows.sh "$trainer" "$python" "$repeats"; }
# LEASE_ROWS set but empty: none (a lease for the goal's run alone).
IFS=, read -r -a gpu_bound <<<"${LEASE_ROWS-deblur,nhwc,datawait}"
for section in "${gpu_bound[@]}"; do step "rows-$section" rows "$section"; done

tests_waited=0
wait_for_tests() {
  [ "$tests_waited" = 0 ] && [ -n "$tests_build" ] || return 0
  tests_waited=1
  if wait "$tests_build"; then note "build-tests: passed"; else note "build-tests: FAILED ($tests_log)"; fi
}
# The host-bound epochs next, alone: the test build is done by then (it is
# waited for), and the goal's training has not started. A lease given to the
# goal alone (no rows, no epochs) starts it at once instead: the build then
# goes on beside it at the lowest priority, and its minutes are training's.
if [ "${#gpu_bound[@]}" -gt 0 ] || [ "${LEASE_EPOCHS:-1}" = 1 ]; then wait_for_tests; fi
if [ "${LEASE_EPOCHS:-1}" = 1 ]; then step rows-epochs rows epochs; fi

# The photos the goal trains on, where another set was asked for.
goal_data=()
if [ -n "${GOAL_PHOTOS:-}" ]; then
  waited=0
  while [ ! -f "$GOAL_PHOTOS" ] && [ "$waited" -lt "${GOAL_PHOTOS_WAIT:-240}" ]; do sleep 5; waited=$((waited + 5)); done
  photos=$PWD/$build_dir/goal-photos
  rm -rf "$photos"
  if [ -f "$GOAL_PHOTOS" ] && mkdir -p "$photos" && tar -xJf "$GOAL_PHOTOS" -C "$photos" &&
     [ -d "$photos/deblur-photos/train" ] && [ -d "$photos/deblur-photos/valid" ]; then
    goal_data=(--set "data.path=$photos/deblur-photos/train" --set "data.validation_path=$photos/deblur-photos/valid")
    note "goal: the photos of $GOAL_PHOTOS: $(find "$photos/deblur-photos/train" -type f | wc -l) training," \
         "$(find "$photos/deblur-photos/valid" -type f | wc -l) held out (waited ${waited} s)"
  else
    note "goal: no usable $GOAL_PHOTOS after ${waited} s: the base photo set"
  fi
fi

# The goal runs beside the GPU tests: neither is a timing.
IFS='|' read -r -a goal_trials <<<"${GOAL_TRIALS:-}"
[ "${#goal_trials[@]}" -gt 0 ] || goal_trials=("")
goal_pids=()
goal_logs=()
for trial in "${goal_trials[@]}"; do
  next_step_log goal
  goal_logs+=("$step_log")
  note "goal: started in the background${trial:+ with $trial}"
  # shellcheck disable=SC2086  # GOAL_ARGS and a trial's options: words
  TRAINER=$trainer scripts/bench/deblur_goal.sh configs/deblur_resnet.yaml --set "devices=$device" "${goal_data[@]}" \
    ${GOAL_ARGS:-} $trial >"$step_log" 2>&1 &
  goal_pids+=($!)  # deblur_goal.sh's run directories differ by its pid
done
# Each goal run's curve so far, into LOGS/goal-live[-N]/ every 10 s, so that
# a lease that ends before the runs do still has their epochs.
follow_goals() {
  while sleep 10; do
    for i in "${!goal_logs[@]}"; do
      local suffix="" dir
      [ "${#goal_logs[@]}" -eq 1 ] || suffix="-$((i + 1))"
      dir=$(sed -n 's/^run directory: //p' "${goal_logs[$i]}" | head -n 1)
      if [ -z "$dir" ] || [ ! -f "$dir/metrics.jsonl" ]; then continue; fi
      mkdir -p "$logs/goal-live$suffix"
      cp "$dir/metrics.jsonl" "$dir/run.json" "$logs/goal-live$suffix/" 2>/dev/null || true
    done
  done
}
follow_goals &
goal_follower=$!
wait_for_tests
if [ "$rehearsal" = 1 ]; then
  note "gpu-tests: left out (rehearsal)"
else
  step gpu-tests ctest --test-dir build-gpu --output-on-failure --no-tests=error -j4 -R "NCCL|GPU|gpu"
fi
for i in "${!goal_pids[@]}"; do
  suffix=""
  [ "${#goal_pids[@]}" -eq 1 ] || suffix="-$((i + 1))"
  if wait "${goal_pids[$i]}"; then note "goal$suffix: passed"; else note "goal$suffix: FAILED (${goal_logs[$i]})"; fi
  run_dir=$(sed -n 's/^run directory: //p' "${goal_logs[$i]}" | head -n 1)
  if [ -n "$run_dir" ] && [ -d "$run_dir" ]; then
    mkdir -p "$logs/goal-run$suffix"
    "$trainer" report "$run_dir" -o "$logs/goal-report$suffix.html" >"$logs/goal-report$suffix.log" 2>&1
    # Checkpoints stay behind: they are the lease's largest files.
    (cd "$run_dir" && find . -type f -size -4M ! -name '*.pt' -print0 | xargs -0 -r cp --parents -t "$logs/goal-run$suffix")
  fi
done
kill "$goal_follower" 2>/dev/null

if [ "${LEASE_LADDER:-0}" = 1 ]; then
  step ladder env TRAINER="$trainer" scripts/bench/pipeline_ladder.sh --config configs/deblur_resnet.yaml --device gpu \
    --repeats 1
fi
note "done"
touch "$logs/DONE"
