#!/usr/bin/env bash
# The GPU rows of docs/performance.md, each measured side by side in one run
# on the first GPU, against the PyTorch whose LibTorch trainer was built on
# (the GPU check builds it so):
#   1. the matrix product: `trainer bench` against torch.mm in that Python
#      (scripts/bench/torch_matmul.py: same inputs, warm-up, median of 10),
#      alternated REPEATS times; the ratio is trainer's GFLOP/s over torch's;
#   2. an epoch of each reference experiment on gpu:0 (fp32, and bf16
#      autocast) against the eager PyTorch-in-Python loop with its data set
#      on the same GPU (gpu_peers.py): the last epoch's training seconds,
#      alternated REPEATS times, trainer's steps replaying a CUDA graph
#      (train.cuda_graph: auto) and eager (off);
#   3. the deblurring generator (configs/deblur_resnet.yaml, batch 8):
#      `trainer bench FILE` (eager, and graphed) against gpu_peers.py's
#      loop, images/s (section deblur); trainer's fused norm kernels against
#      LibTorch's layers, gpu.fused_kernels true / false (fused); the
#      convolutions without the biases instance norms cancel, against with
#      them, gpu.skip_cancelled_biases true / false (biases); NCHW
#      against channels-last (layout); the Python loop through torch.compile
#      beside trainer's graphed steps, bf16, once (compile); a real two-epoch
#      run's data wait with
#      the degradation on the GPU and on the CPU (datawait); channels-last
#      with every instance norm in trainer's channel-tiled kernels against
#      the defaults (NCHW, LibTorch's layers), eager and graphed (nhwc);
#      where the step's GPU time goes, kernel by kernel, in the Python loop
#      (torch.profiler), in trainer's eager and channels-last steps, and in
#      a graphed Reuters step (train.profile, Kineto) (kernels); and, only when named, the
#      full config trained as shipped against the identity baseline (goal:
#      scripts/bench/deblur_goal.sh, GOAL_ARGS: more --set for it). All
#      need the photos in data/deblur-photos;
#   4. where a GPU step's host time goes (step_profile.sh on gpu:0).
# Reuters needs $TRAINER_DATA_DIR/reuters21578; Fashion-MNIST is read from
# $TRAINER_DATA_DIR/fashion-mnist or the Debian package's folder.
#
# Usage: scripts/bench/gpu_rows.sh [TRAINER] [PYTHON] [REPEATS] [EPOCHS]
#   (defaults: build-gpu/trainer python3 2 2)
# GPU_ROWS=deblur,fused,epochs (any of matmul, epochs, deblur, compile,
# fused, biases, layout, nhwc, kernels, datawait, goal, profile; default
# all but goal) runs those
# sections only, in that order: a short lease measures what it must first.
# GPU_ROWS_PRECISIONS (default "fp32 bf16"): the precisions of the rows
# measured in both; the rows measured in one (compile, kernels, datawait)
# take its last word. GPU_ROWS_STEPS (default 30): the timed steps of each
# deblurring bench, after 5 of warm-up. GPU_ROWS_DEVICE (default gpu:0) and
# GPU_ROWS_DEBLUR_SETS (more --set words for every run of the deblurring
# config) exist for rehearsing these scripts on a CPU
# (scripts/check-lease-scripts.sh), where no figure means anything.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
# shellcheck source=scripts/lib/reference_run.sh
source scripts/lib/reference_run.sh
trainer=${1:-build-gpu/trainer}
python=${2:-python3}
repeats=${3:-2}
epochs=${4:-2}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
data=${TRAINER_DATA_DIR:-}
sections=${GPU_ROWS:-matmul,epochs,deblur,compile,fused,biases,layout,nhwc,kernels,datawait,profile}
device=${GPU_ROWS_DEVICE:-gpu:0}
precisions=${GPU_ROWS_PRECISIONS:-fp32 bf16}
half=${precisions##* }  # the precision of the rows measured in one
steps=${GPU_ROWS_STEPS:-30}
# shellcheck disable=SC2206  # words, e.g. --set data.patch_size=16
deblur_sets=(--set "devices=$device" ${GPU_ROWS_DEBLUR_SETS:-})
want() { [[ ",$sections," == *",$1,"* ]]; }

json_gflops() { "$python" -c 'import json, sys; print(json.load(sys.stdin)["results"][0]["gflops"])'; }

if want matmul; then
  echo "== matrix product on $device: trainer bench against torch.mm ($("$python" -c 'import torch; print(torch.__version__)')), GFLOP/s, median of 10 after a warm-up"
  printf '%-17s %-5s %-6s %12s %12s %8s\n' shape dtype repeat trainer torch.mm ratio
  for case in 10000x100x100000:fp32 8192x8192x8192:fp32 8192x8192x8192:bf16; do
    shape=${case%:*} dtype=${case#*:}
    for repeat in $(seq "$repeats"); do
      t=$("$trainer" bench --device "$device" --shape "$shape" --dtype "$dtype" --repeat 10 --json | json_gflops)
      p=$("$python" scripts/bench/torch_matmul.py cuda "$shape" "$dtype" 10 | awk '{ print $3 }')
      awk -v s="$shape" -v d="$dtype" -v r="$repeat" -v t="$t" -v p="$p" \
        'BEGIN { printf "%-17s %-5s %-6s %12.0f %12.0f %8.3f\n", s, d, r, t, p, t / p }'
    done
  done
fi

trainer_epoch() {  # $1 experiment, $2 precision, $3 repeat, $4 train.cuda_graph -> last epoch's training seconds and val accuracy
  reference_run "$trainer" "$1" "$out/runs" "$2-$3-$4" --set "devices=$device" --set "precision=$2" \
    --set "train.epochs=$epochs" --set "train.cuda_graph=$4" || { echo failed; return; }
  "$python" scripts/bench/last_epoch.py "$out/runs/$1/$2-$3-$4/metrics.jsonl" train_seconds val_accuracy |
    awk '{ printf "%.3f %.4f\n", $1, $2 }'
}

# images_per_second EXPERIMENT PRECISION [--set KEY=VALUE ...]: `trainer bench
# FILE` on the device, STEPS steps after 5 of warm-up, its samples a second.
images_per_second() {
  local experiment=$1 precision=$2 sets=(--set "devices=$device")
  shift 2
  [ "$experiment" = deblur_resnet ] && sets=("${deblur_sets[@]}")
  "$trainer" bench "configs/$experiment.yaml" --steps "$steps" --warmup 5 --json "${sets[@]}" \
    --set "precision=$precision" --log-level warn "$@" |
    "$python" -c 'import json, sys; print(json.load(sys.stdin)["samples_per_second"])'
}

# eager_and_graphed PRECISION [--set KEY=VALUE ...]: the generator's `trainer
# bench FILE` (STEPS steps after 5): images/s of its eager steps, then of the
# same steps replaying a CUDA graph (0 where the step could not be captured),
# then the eager steps' data phase in percent (on a GPU the batches' blurs
# and noise, data.degrade.on_device, which the Python loop does not do),
# then the input pipeline's samples a second alone (no steps).
eager_and_graphed() {
  local precision=$1
  shift
  "$trainer" bench configs/deblur_resnet.yaml --steps "$steps" --warmup 5 --json "${deblur_sets[@]}" \
    --set "precision=$precision" \
    --log-level warn "$@" |
    "$python" -c 'import json, sys
r = json.load(sys.stdin)
phases = r["seconds"]
print(r["samples_per_second"], (r["graphed_steps_per_second"] or 0) * r["batch_size"],
      100 * phases["data"] / max(sum(phases.values()), 1e-12), r["input_samples_per_second"] or 0)'
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a + 0 > 0 && b + 0 > 0) printf "%.2fx", a / b; else print "-" }'; }

# switch_rows KEY ON OFF: the generator's `trainer bench FILE` images/s with
# KEY true (column ON) and false (OFF), fp32 and bf16, alternated REPEATS
# times, and their ratio.
switch_rows() {
  local key=$1 on=$2 off=$3 repeat precision a b
  printf '%-18s %-9s %-6s %10s %10s %12s\n' experiment precision repeat "$on" "$off" "$on/$off"
  for repeat in $(seq "$repeats"); do
    for precision in $precisions; do
      a=$(images_per_second deblur_resnet "$precision" --set "$key=true")
      b=$(images_per_second deblur_resnet "$precision" --set "$key=false")
      printf '%-18s %-9s %-6s %10.1f %10.1f %12s\n' deblur_resnet "$precision" "$repeat" "$a" "$b" "$(ratio "$a" "$b")"
    done
  done
}

echo
if want epochs; then
  echo "== epoch on $device ($epochs epochs; the last one's training steps, seconds): trainer against the eager Python"
  echo "   loop with its data set on the GPU (gpu_peers.py), alternated; trainer's steps as a CUDA graph (train.cuda_graph"
  echo "   auto, the default) and eager (off)"
  printf '%-18s %-9s %-6s %10s %10s %10s %10s %16s %14s\n' experiment precision repeat trainer "val acc" eager python \
    python/trainer eager/trainer
  for experiment in reuters_conv1d fashion_mnist_cnn; do
    short=${experiment%%_*}
    corpus=()
    if [ "$short" = reuters ]; then
      [ -d "$data/reuters21578" ] || { echo "no $data/reuters21578: Reuters left out"; continue; }
      corpus=("$data/reuters21578")
    fi
    for repeat in $(seq "$repeats"); do
      for precision in $precisions; do
        p=$("$python" scripts/bench/gpu_peers.py "$short" "$precision" "$epochs" "${corpus[@]}" | tail -1 | awk '{ print $2 }')
        read -r t accuracy <<<"$(trainer_epoch "$experiment" "$precision" "$repeat" auto)"
        read -r e _ <<<"$(trainer_epoch "$experiment" "$precision" "$repeat" off)"
        printf '%-18s %-9s %-6s %10s %10s %10s %10s %16s %14s\n' "$experiment" "$precision" "$repeat" "$t" "$accuracy" \
          "$e" "$p" "$(ratio "$p" "$t")" "$(ratio "$e" "$t")"
      done
    done
  done
fi

# The deblurring rows need the photos (scripts/deblur-photos.sh data/deblur-photos).
photos=false
if [ -d data/deblur-photos/train ]; then
  photos=true
elif want deblur || want compile || want fused || want biases || want layout || want datawait || want goal; then
  echo "no data/deblur-photos: the deblurring rows left out (scripts/deblur-photos.sh data/deblur-photos)"
fi

if $photos && want deblur; then
  echo
  echo "== deblurring generator, batch 8 on $device, images/s: trainer bench FILE ($steps steps after 5) against the eager"
  echo "   Python loop (gpu_peers.py deblur, $steps steps after 5), alternated"
  echo "   (trainer: eager steps, then the same steps replaying a CUDA graph)"
  echo "   (data %: the share of trainer's eager step that is the batch's blurs and noise on the GPU)"
  echo "   (input/s: trainer's input pipeline alone, its batches on the GPU with no step, images/s)"
  printf '%-9s %-6s %10s %10s %10s %16s %16s %8s %10s\n' precision repeat trainer graphed python trainer/python \
    graphed/python "data %" "input/s"
  for repeat in $(seq "$repeats"); do
    for precision in $precisions; do
      p=$("$python" scripts/bench/gpu_peers.py deblur "$precision" "$steps" | awk '{ print $3 }')
      read -r t g d i <<<"$(eager_and_graphed "$precision")"
      printf '%-9s %-6s %10.1f %10.1f %10.1f %16s %16s %8.1f %10.0f\n' "$precision" "$repeat" "$t" "$g" "$p" \
        "$(ratio "$t" "$p")" "$(ratio "$g" "$p")" "${d:-0}" "${i:-0}"
    done
  done
fi

if $photos && want compile; then
  echo
  echo "== deblurring generator in $half, batch 8 on $device, images/s: the Python loop through torch.compile (the figure"
  echo "   trainer's CUDA graphs are held to; compiled in its warm-up), the eager loop, trainer's graphed and eager"
  echo "   steps (trainer bench FILE), $steps steps after 5 each, once (compiling takes a minute)"
  printf '%-9s %10s %10s %10s %10s %16s %16s\n' precision compiled python graphed trainer graphed/compiled \
    graphed/python
  c=$("$python" scripts/bench/gpu_peers.py deblur "$half" "$steps" compile | tail -1 | awk '{ print $3 }')
  p=$("$python" scripts/bench/gpu_peers.py deblur "$half" "$steps" | awk '{ print $3 }')
  read -r t g _ <<<"$(eager_and_graphed "$half")"
  printf '%-9s %10.1f %10.1f %10.1f %10.1f %16s %16s\n' "$half" "${c:-0}" "${p:-0}" "$g" "$t" "$(ratio "$g" "$c")" \
    "$(ratio "$g" "$p")"
fi

if $photos && want fused; then
  echo
  echo "== fused kernels on $device: trainer bench FILE ($steps steps after 5), each instance norm with its ReLU, dropout"
  echo "   and reflection padding as one CUDA kernel (gpu.fused_kernels: true) against LibTorch's"
  echo "   kernels one layer at a time (false, the default), images/s, alternated"
  switch_rows gpu.fused_kernels fused unfused
fi

if $photos && want biases; then
  echo
  echo "== cancelled biases on $device: trainer bench FILE ($steps steps after 5), the 23 convolutions an instance norm reads"
  echo "   without their biases (gpu.skip_cancelled_biases: true, the default) against with them (false), images/s,"
  echo "   alternated"
  switch_rows gpu.skip_cancelled_biases skipped kept
fi

if $photos && want layout; then
  echo
  echo "== image layout on $device: trainer bench FILE ($steps steps after 5), NCHW (the default) against channels-last"
  echo "   (gpu.channels_last=true), images/s, alternated"
  printf '%-18s %-9s %-6s %10s %14s %10s\n' experiment precision repeat NCHW channels-last NCHW/last
  for repeat in $(seq "$repeats"); do
    for row in deblur_resnet:fp32 deblur_resnet:bf16 fashion_mnist_cnn:bf16; do
      experiment=${row%:*} precision=${row#*:}
      nchw=$(images_per_second "$experiment" "$precision")
      last=$(images_per_second "$experiment" "$precision" --set gpu.channels_last=true)
      printf '%-18s %-9s %-6s %10.1f %14.1f %10s\n' "$experiment" "$precision" "$repeat" "$nchw" "$last" \
        "$(ratio "$nchw" "$last")"
    done
  done
fi

if $photos && want nhwc; then
  echo
  echo "== deblurring generator, batch 8 on $device, images/s of trainer bench FILE ($steps steps after 5), alternated:"
  echo "   channels-last with every instance norm in trainer's channel-tiled kernels (gpu.channels_last and"
  echo "   gpu.fused_kernels true) against the defaults (NCHW, LibTorch's layers); eager steps, and graphed;"
  echo "   and the best of channels-last's two against the eager Python loop (gpu_peers.py deblur, NCHW)"
  printf '%-9s %-6s %10s %10s %10s %10s %10s %12s %14s %12s\n' precision repeat NCHW graphed last graphed python \
    last/NCHW graphed-ratio best/python
  for repeat in $(seq "$repeats"); do
    for precision in $precisions; do
      read -r e g _ <<<"$(eager_and_graphed "$precision")"
      read -r le lg _ <<<"$(eager_and_graphed "$precision" --set gpu.channels_last=true --set gpu.fused_kernels=true)"
      p=$("$python" scripts/bench/gpu_peers.py deblur "$precision" "$steps" | awk '{ print $3 }')
      best=$(awk -v a="${le:-0}" -v b="${lg:-0}" 'BEGIN { print (a > b ? a : b) }')
      printf '%-9s %-6s %10.1f %10.1f %10.1f %10.1f %10.1f %12s %14s %12s\n' "$precision" "$repeat" "${e:-0}" \
        "${g:-0}" "${le:-0}" "${lg:-0}" "${p:-0}" "$(ratio "$le" "$e")" "$(ratio "$lg" "$g")" "$(ratio "$best" "$p")"
    done
  done
fi

if $photos && want kernels; then
  echo
  echo "== where the deblurring step's GPU time goes, $half, kernel by kernel over 10 steps"
  echo "-- the eager Python loop (gpu_peers.py deblur $half 10 profile; torch.profiler)"
  "$python" scripts/bench/gpu_peers.py deblur "$half" 10 profile || echo "the Python loop's profile failed"
  # Eager steps: a graphed step's kernels are the same, and its trace shows
  # the replays rather than the operators.
  for variant in "eager:train.cuda_graph=off" \
    "channels-last-fused:train.cuda_graph=off gpu.channels_last=true gpu.fused_kernels=true"; do
    name=${variant%%:*}
    sets=()
    for setting in ${variant#*:}; do sets+=(--set "$setting"); done
    echo "-- trainer, $name steps (train.profile: the second epoch's first 10 steps)"
    reference_run "$trainer" deblur_resnet "$out/runs" "profile-$name" --set "precision=$half" --set train.epochs=2 \
      --set data.patches_per_image=4 "${deblur_sets[@]}" --set "train.profile={epoch: 2, steps: 10}" "${sets[@]}" &&
      "$python" scripts/bench/profile_top_ops.py "$out/runs/deblur_resnet/profile-$name/profile-2.json" 15 ||
      echo "trainer's $name profile failed"
  done
fi

# The Reuters step, kernel by kernel: whether a graphed epoch waits for the
# device (its kernels fill the step) or for the host.
if want kernels && [ -d "$data/reuters21578" ]; then
  echo
  echo "-- trainer, reuters_conv1d, train.cuda_graph auto, fp32 (train.profile: the second epoch's first 50 steps)"
  reference_run "$trainer" reuters_conv1d "$out/runs" profile-auto --set "devices=$device" --set train.epochs=2 \
    --set train.cuda_graph=auto --set "train.profile={epoch: 2, steps: 50}" &&
    "$python" scripts/bench/profile_top_ops.py "$out/runs/reuters_conv1d/profile-auto/profile-2.json" 10 ||
    echo "trainer's reuters_conv1d profile failed"
fi

if $photos && want datawait; then
  echo
  echo "== the real deblurring run on $device in $half (2 epochs): data wait, share of the training steps,"
  echo "   with the degradation on the GPU (data.degrade.on_device: auto) and on the CPU (false); the host's wait"
  echo "   for the loader, and the GPU's idle time for want of a batch (the figure that costs time on a GPU)"
  for placement in auto false; do
    reference_run "$trainer" deblur_resnet "$out/runs" "deblur-$placement" --set "precision=$half" --set train.epochs=2 \
      "${deblur_sets[@]}" --set "data.degrade.on_device=$placement" &&
      "$python" scripts/bench/last_epoch.py "$out/runs/deblur_resnet/deblur-$placement/metrics.jsonl" train_seconds \
        data_wait_seconds data_wait_fraction gpu_idle_for_data_fraction samples_per_second |
      awk -v p="$placement" '{ printf "on_device %-5s epoch %.2f s, data wait %.3f s = %.2f%%, GPU idle for data %.2f%%, %.0f samples/s\n", p, $1, $2, 100 * $3, 100 * $4, $5 }'
  done
fi

if $photos && want goal; then
  echo
  echo "== the full deblurring config on $device as shipped, against the identity baseline (scripts/bench/deblur_goal.sh)"
  # shellcheck disable=SC2086  # GOAL_ARGS: words, e.g. --set optimizer.lr=0.0005
  TRAINER=$trainer scripts/bench/deblur_goal.sh configs/deblur_resnet.yaml "${deblur_sets[@]}" ${GOAL_ARGS:-} ||
    echo "the deblurring goal's run failed"
fi

if want profile; then
  for experiment in reuters_conv1d fashion_mnist_cnn; do
    echo
    echo "== host-side profile of 50 GPU steps"
    TRAINER=$trainer PYTHON=$python scripts/bench/step_profile.sh "$experiment" "$(nproc)" 50 --set "devices=$device" ||
      echo "profile of $experiment failed"
  done
fi
