#!/usr/bin/env bash
# Installs the dependencies, builds trainer with its tests, runs them all.
# This is the README's test command and what CI runs.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh -DTRAINER_BUILD_TESTS=ON
cd "${TRAINER_BUILD_DIR:-build}"
ctest --output-on-failure -j"$(nproc)"
