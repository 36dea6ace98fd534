#!/usr/bin/env bash
# Which BLAS set-up trains fastest under LibTorch's intra-op threads: the
# Fashion-MNIST CNN (convolutions go through BLAS gemm) on 20,000 samples,
# second epoch timed, with
#   - OpenBLAS (pthread), 1 BLAS thread   (trainer's default: blas_threads 1)
#   - OpenBLAS (pthread), 2 BLAS threads
#   - the reference BLAS (netlib), forced through LD_LIBRARY_PATH
#
# Usage: scripts/bench/blas_bench.sh [THREADS]   (after scripts/build.sh)
set -euo pipefail
cd "$(dirname "$0")/../.."
threads=${1:-$(nproc)}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
reference_blas=/usr/lib/x86_64-linux-gnu/blas

run() {  # label, blas_threads, env...
  local label=$1 blas=$2
  shift 2
  env "$@" build/trainer run configs/fashion_mnist_cnn.yaml --quiet --log-level warn --set "cpu_threads=$threads" \
    --set "blas_threads=$blas" --set train.epochs=2 --set data.max_train_samples=20000 \
    --set data.max_valid_samples=1000 --set "log.dir=$out" --set "log.run_name=$label" >/dev/null
  /usr/bin/python3 -c '
import json, sys
m = [json.loads(l) for l in open(sys.argv[1])][-1]
print(f"{sys.argv[2]:<32} {m[\"train_seconds\"]:8.2f} s {m[\"samples_per_second\"]:9.0f} samples/s")
' "$out/fashion_mnist_cnn/$label/metrics.jsonl" "$label"
}

echo "Fashion-MNIST CNN, 20,000 samples, $threads intra-op threads, epoch 2:"
run openblas-1-thread 1
run openblas-2-threads 2
if [ -e "$reference_blas/libblas.so.3" ]; then
  run reference-blas 1 LD_LIBRARY_PATH="$reference_blas"
else
  echo "reference-blas: not installed (apt-get install libblas3)"
fi
