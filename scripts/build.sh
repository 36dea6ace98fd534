#!/usr/bin/env bash
# Configures and builds trainer in build/ (tests: pass -DTRAINER_BUILD_TESTS=ON,
# as scripts/run-tests.sh does). Re-runs are
# incremental; ccache, a shared precompiled torch header and a unity build
# (TRAINER_UNITY_BUILD) keep a clean build to a few minutes on 2 cores; a
# new build directory is made for Ninja where it is installed
# (scripts/lib/cmake_generator.sh says why).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib/cmake_generator.sh
source scripts/lib/cmake_generator.sh
build_dir="${TRAINER_BUILD_DIR:-build}"
mapfile -t generator < <(cmake_generator_args "$build_dir")
cmake -S . -B "$build_dir" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DTRAINER_BUILD_TESTS=OFF "$@"
cmake --build "$build_dir" -j"$(nproc)"
echo "build: $build_dir/trainer"
