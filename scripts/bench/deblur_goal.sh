#!/usr/bin/env bash
# Does a deblurring config beat doing nothing? Trains it once, as shipped
# (plus any --set given), and prints the held-out photos' identity baseline
# (the blurred inputs' own PSNR and SSIM against the sharp targets, which the
# run logs before its first epoch), every epoch's validation PSNR and SSIM,
# the final gain over the baseline and the training time. The goals of
# docs/deblurring.md: the small config on 2 CPU cores >= +0.5 dB in <= 10
# minutes; the full config on one GPU >= +1.0 dB, SSIM above the baseline's,
# in <= 30 minutes.
#
# Usage: scripts/bench/deblur_goal.sh [CONFIG] [--set KEY=VALUE]...
#   CONFIG  default configs/deblur_resnet_small.yaml; the photos must be
#           gathered first (scripts/deblur-photos.sh data/deblur-photos)
# After scripts/build.sh (TRAINER=PATH for another build, build-gpu/trainer on
# the GPU machine). Prints figures; asserts nothing. The run stays in
# runs/deblur-goal-* for its report (trainer report RUN_DIR).
set -euo pipefail
cd "$(dirname "$0")/../.."
config=configs/deblur_resnet_small.yaml
if [ $# -gt 0 ] && [[ $1 != --* ]]; then config=$1; shift; fi
run_dir="runs/deblur-goal-$(date +%Y%m%d-%H%M%S)-$$"  # the pid: two trials started in one second
# Said first as well, so that a driver can follow the run while it trains
# (scripts/gpu-lease.sh copies its metrics.jsonl as epochs end).
echo "run directory: $run_dir"
start=$(date +%s)
"${TRAINER:-build/trainer}" run "$config" "$@" --run-dir "$run_dir" --quiet --log-level warn >/dev/null
seconds=$(( $(date +%s) - start ))
python=/usr/bin/python3
[ -x "$python" ] || python=python3
"$python" - "$run_dir" "$seconds" <<'EOF'
import json, sys
run_dir, seconds = sys.argv[1], int(sys.argv[2])
run = json.load(open(run_dir + "/run.json"))
base = run["identity_baseline"]
records = [json.loads(line) for line in open(run_dir + "/metrics.jsonl")]
print("%-8s %12s %10s %14s" % ("epoch", "val PSNR dB", "val SSIM", "epoch seconds"))
print("%-8s %12.2f %10.3f" % ("baseline", base["val_psnr"], base["val_ssim"]))
for r in records:
    print("%-8d %12.2f %10.3f %14.1f" % (r["epoch"], r["val_psnr"], r["val_ssim"], r["epoch_seconds"]))
last = records[-1]
train = sum(r["epoch_seconds"] for r in records)
print("gain over the baseline: %+.2f dB PSNR, %+.3f SSIM after %d epochs; %.0f s of training epochs, %d s in all"
      % (last["val_psnr"] - base["val_psnr"], last["val_ssim"] - base["val_ssim"], last["epoch"], train, seconds))
print("run directory: " + run_dir)
EOF
