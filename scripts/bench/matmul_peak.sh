#!/usr/bin/env bash
# The fp32 matrix product against the CPU's estimated peak (goal: 90 %), on
# the issue's default shape A(10000x100) @ B(100x100000) and on square
# shapes. The default shape does 200 FLOP per 4-byte output element over a
# 4 GB product, which OpenBLAS zeroes in a pass of its own before its kernel
# reads and writes it again, so memory bandwidth bounds it on small machines
# (README 'trainer bench' has the breakdown); the square shapes show what the
# BLAS reaches when the arithmetic dominates.
#
# Usage: scripts/bench/matmul_peak.sh [REPEATS]   (after scripts/build.sh)
set -euo pipefail
cd "$(dirname "$0")/../.."
repeats=${1:-5}
build/trainer devices | sed -n '1,2p'
for shape in 10000x100x100000 2000x2000x2000 4000x4000x4000; do
  build/trainer bench --shape "$shape" --repeat "$repeats" | sed -n '3p' | sed "s/^/$shape /"
done
build/trainer bench --shape 2000x2000x2000 --repeat 1 | tail -1
