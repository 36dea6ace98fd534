#!/usr/bin/env bash
# Which BLAS set-up trains fastest under LibTorch's intra-op threads. Two
# workloads, second epoch timed: the Fashion-MNIST CNN on 20,000 samples
# (its convolutions run in oneDNN, only the last dense layer in BLAS) and a
# dense-layer MLP on synthetic data (784-1024-1024-10, batch 128), where
# Debian's LibTorch spends its time in libblas.so.3. Set-ups:
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

mlp=(--set data.dataset=synthetic --set 'data.synthetic={train_samples: 20000, valid_samples: 1000, shape: [784], classes: 10}'
     --set 'model.layers=[{type: dense, units: 1024, activation: relu}, {type: dense, units: 1024, activation: relu}, {type: dense, units: classes, activation: softmax}]'
     --set train.batch_size=128 --set experiment.name=mlp)

run() {  # label, blas_threads, workload (cnn|mlp), env...
  local label=$1 blas=$2 workload=$3
  shift 3
  local name=fashion_mnist_cnn extra=()
  [ "$workload" = mlp ] && name=mlp extra=("${mlp[@]}")
  env "$@" build/trainer run configs/fashion_mnist_cnn.yaml --quiet --log-level warn --set "cpu_threads=$threads" \
    --set "blas_threads=$blas" --set train.epochs=2 --set data.max_train_samples=20000 \
    --set data.max_valid_samples=1000 --set "log.dir=$out" --set "log.run_name=$label" "${extra[@]}" >/dev/null
  /usr/bin/python3 -c '
import json, sys
m = [json.loads(l) for l in open(sys.argv[1])][-1]
print("%-32s %8.2f s %9.0f samples/s" % (sys.argv[2], m["train_seconds"], m["samples_per_second"]))
' "$out/$name/$label/metrics.jsonl" "$workload $label"
}

echo "$threads intra-op threads, epoch 2 of 2:"
for workload in cnn mlp; do
  run openblas-1-thread 1 "$workload"
  run openblas-2-threads 2 "$workload"
  if [ -e "$reference_blas/libblas.so.3" ]; then
    run reference-blas 1 "$workload" LD_LIBRARY_PATH="$reference_blas"
  else
    echo "reference-blas: not installed (apt-get install libblas3)"
  fi
done
