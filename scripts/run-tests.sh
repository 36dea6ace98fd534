#!/usr/bin/env bash
# Installs the dependencies, builds trainer with its tests, runs them all.
# This is the README's test command and what CI runs. Tests that need the
# Reuters-21578 corpus find it through TRAINER_DATA_DIR; where that is unset
# and a ../shared/data folder sits beside the clone (the development and CI
# machines), it is used. Without it those tests are reported as skipped.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${TRAINER_DATA_DIR:-}" ] && [ -d ../shared/data/reuters21578 ]; then
  TRAINER_DATA_DIR=$(cd ../shared/data && pwd)
  export TRAINER_DATA_DIR
fi
scripts/install-deps.sh
scripts/build.sh -DTRAINER_BUILD_TESTS=ON
cd "${TRAINER_BUILD_DIR:-build}"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
ctest --output-on-failure -j"$(nproc)" 2>&1 | tee "$log" || status=$?
# ctest lists the skipped tests after its summary; repeat the summary last.
grep -E '^[0-9]+% tests passed' "$log" | tail -1
exit "$status"
