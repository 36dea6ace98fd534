#!/usr/bin/env bash
# Peak memory of `trainer predict` on one large photo-sized image, whole and
# in tiles: with tiles the image is decoded, predicted and encoded a band of
# rows at a time, so its peak should grow with the image's width, not its
# area. Trains a small image-to-image model for one epoch first (seconds),
# then prints each mode's peak resident memory (the child's maximum RSS), its
# ratio to the whole image's, and the seconds it took.
#
# Usage: scripts/bench/predict_memory.sh [SIDE]   (after scripts/build.sh; SIDE
# defaults to 6000: a SIDE x SIDE RGB PNG; needs Debian's python3-pil)
set -euo pipefail
cd "$(dirname "$0")/../.."
side=${1:-6000}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

/usr/bin/python3 - "$out" "$side" <<'PY'
import os, sys
from PIL import Image
out, side = sys.argv[1], int(sys.argv[2])
os.makedirs(f"{out}/photos")
for i in range(8):
    Image.effect_mandelbrot((40, 40), (-2 + i * 0.1, -1.5, 1, 1.5), 100).convert("RGB").save(f"{out}/photos/{i}.png")
os.makedirs(f"{out}/large")
Image.effect_mandelbrot((side, side), (-2, -1.5, 1, 1.5), 100).convert("RGB").save(f"{out}/large/big.png")
PY
cat >"$out/deblur.yaml" <<YAML
experiment: {name: predict-memory, seed: 1}
data: {dataset: image_degrade, path: $out/photos, patch_size: 16, validation_split: 0.25,
       degrade: {motion_blur: {length: 5}}}
model:
  layers:
    - {type: conv2d, filters: 16, kernel_size: 3, strides: 2, padding: same, activation: relu}
    - {type: conv2d_transpose, filters: 3, kernel_size: 3, strides: 2, padding: same, name: correction}
    - {type: add, inputs: [input, correction]}
train: {epochs: 1, batch_size: 4}
log: {dir: $out/runs, run_name: run}
YAML
build/trainer run "$out/deblur.yaml" --quiet --log-level warn >/dev/null
/usr/bin/python3 - "$out" "$side" <<'PY'
import os, resource, subprocess, sys, time
out, side = sys.argv[1], sys.argv[2]
print(f"input: {side} x {side} RGB PNG, {os.path.getsize(out + '/large/big.png') // 1024} KiB on disk")
print("%-12s %14s %10s %10s" % ("mode", "peak RSS MiB", "/ whole", "seconds"))
whole = None
for mode in ["whole", "1024", "512", "256"]:
    # Each run in a child of its own, so that its peak is its own.
    measure = ("import resource, subprocess, sys; subprocess.run(sys.argv[1:], check=True); "
               "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    command = ["build/trainer", "predict", out + "/deblur.yaml", "--checkpoint", out + "/runs/predict-memory/run",
               "--input", out + "/large", "--output", out + "/restored-" + mode, "--log-level", "warn"]
    if mode != "whole":
        command += ["--tile", mode]
    start = time.monotonic()
    kib = int(subprocess.run(["/usr/bin/python3", "-c", measure] + command, check=True, capture_output=True,
                             text=True).stdout.split()[-1])
    seconds = time.monotonic() - start
    whole = whole or kib
    print("%-12s %14.0f %10.2f %10.1f" % (mode if mode == "whole" else "tile " + mode, kib / 1024, kib / whole, seconds))
PY
