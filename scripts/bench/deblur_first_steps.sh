#!/usr/bin/env bash
# How far the first optimizer steps move a deblurring model from where it
# starts: trains CONFIG for STEPS steps at a constant rate, one step an
# "epoch" so that the held-out patches are scored after every step, and
# prints the identity baseline (the blurred inputs' own PSNR) and the
# validation PSNR after each step, for the config as written and for each
# VARIANT (a list of --set options in one argument). A model that starts as
# the identity (a zero-initialised correction added to its input) should
# stay near the baseline; one whose first steps throw it far below says its
# rate is too large for its first layers or its last one.
#
# Runs on the CPU with small patches (data.patch_size, default 64) so that
# the full config's first steps take minutes, not a GPU; the movement comes
# from the optimizer's step sizes, not the patch size. With --epochs N, whole
# epochs (the config's patches an epoch) instead of single steps, still at a
# constant rate: where each variant stands after its first epochs.
#
# Usage: scripts/bench/deblur_first_steps.sh [CONFIG] [--steps N | --epochs N] [--patch P] ['--set K=V ...']...
#   CONFIG default configs/deblur_resnet.yaml; the photos must be gathered
#   first (scripts/deblur-photos.sh data/deblur-photos); after
#   scripts/build.sh (TRAINER=PATH for another build). Prints figures;
#   asserts nothing.
# Example: scripts/bench/deblur_first_steps.sh configs/deblur_resnet.yaml \
#            '--set optimizer.lr_scale={correction: 0.01}' '--set optimizer.lr=0.0003'
set -euo pipefail
cd "$(dirname "$0")/../.."
config=configs/deblur_resnet.yaml steps=8 epochs=0 patch=64
variants=("")
while [ $# -gt 0 ]; do
  case "$1" in
    --steps) steps=$2; shift 2 ;;
    --epochs) epochs=$2; shift 2 ;;
    --patch) patch=$2; shift 2 ;;
    --set*) variants+=("$1"); shift ;;
    -*) echo "usage: $0 [CONFIG] [--steps N | --epochs N] [--patch P] ['--set K=V ...']..." >&2; exit 2 ;;
    *) config=$1; shift ;;
  esac
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python=/usr/bin/python3
[ -x "$python" ] || python=python3
if [ "$epochs" -gt 0 ]; then
  length=(--set "train.epochs=$epochs")
  echo "$config on the CPU, $patch-pixel patches: validation PSNR (dB) after each of $epochs epochs at a constant rate"
else
  length=(--set train.steps_per_epoch=1 --set "train.epochs=$steps")
  echo "$config on the CPU, $patch-pixel patches: validation PSNR (dB) after each of $steps steps at a constant rate"
fi
for variant in "${variants[@]}"; do
  sets=()
  # A variant's options: "--set K=V --set K2={a: b}", split at each --set.
  while IFS= read -r option; do [ -z "$option" ] || sets+=(--set "$option"); done \
    < <(printf '%s\n' "$variant" | sed 's/ *--set /\n/g')
  dir="$work/run"
  rm -rf "$dir"
  if ! "${TRAINER:-build/trainer}" run "$config" --set devices=cpu --set "data.patch_size=$patch" \
      "${length[@]}" --set "optimizer.schedule={name: constant}" \
      "${sets[@]}" --run-dir "$dir" --quiet --log-level warn >"$work/out" 2>&1; then
    echo "deblur_first_steps: ${variant:-the config as written} failed:" >&2
    tail -5 "$work/out" >&2
    exit 1
  fi
  "$python" - "$dir" "${variant:-as written}" <<'EOF'
import json, sys
run_dir, label = sys.argv[1], sys.argv[2]
base = json.load(open(run_dir + "/run.json"))["identity_baseline"]["val_psnr"]
steps = [json.loads(line)["val_psnr"] for line in open(run_dir + "/metrics.jsonl")]
print("%-48s baseline %.2f | %s | lowest %+.2f, last %+.2f" % (
    label, base, " ".join("%.2f" % v for v in steps), min(steps) - base, steps[-1] - base))
EOF
done
