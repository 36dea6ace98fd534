#!/usr/bin/env bash
# The whole test suite under AddressSanitizer and UndefinedBehaviorSanitizer:
#   scripts/check-sanitizers.sh
# Builds in build-asan/ (TRAINER_ASAN_BUILD_DIR) with -fsanitize=address,undefined
# (every target, the trainer binary the end-to-end tests run included) and
# runs ctest there. Any sanitizer report fails the test that triggered it.
# Leak checking is off: LibTorch's static registries are still allocated at
# exit; the fuzz targets (scripts/fuzz.sh) check our parsers for leaks.
# Takes 45-60 minutes on 2 cores; run it before resolving work that touches
# parsers or memory.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${TRAINER_DATA_DIR:-}" ] && [ -d ../shared/data/reuters21578 ]; then
  TRAINER_DATA_DIR=$(cd ../shared/data && pwd)
  export TRAINER_DATA_DIR
fi
build=${TRAINER_ASAN_BUILD_DIR:-build-asan}
scripts/install-deps.sh
start=$SECONDS
mkdir -p "$build"
# GCC's regex headers warn (-Wmaybe-uninitialized) under ASan: the build's
# output goes to a log, shown when the build fails.
if ! TRAINER_BUILD_DIR=$build scripts/build.sh -DTRAINER_BUILD_TESTS=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DTRAINER_SANITIZE=address,undefined >"$build/build.log" 2>&1; then
  grep -E 'error' "$build/build.log" | head -20
  echo "check-sanitizers: the build failed; see $build/build.log"
  exit 1
fi
echo "check-sanitizers: built in $((SECONDS - start)) s"
# allocator_may_return_null: an allocation too large for the machine fails
# as it would without ASan (LibTorch throws; tests check the message).
export ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1:abort_on_error=0:halt_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# Every process starts and runs several times slower: the tests' bounds on
# failure paths (a hung rank ends within N s) stretch by this factor.
export TRAINER_TEST_TIME_SCALE=3
cd "$build"
status=0
ctest --output-on-failure -j"$(nproc)" >ctest.log 2>&1 || status=$?
grep -E 'ERROR: AddressSanitizer|runtime error:' ctest.log | sort | uniq -c | head -20 || true
grep -E '^[0-9]+% tests passed' ctest.log | tail -1
echo "check-sanitizers: $((SECONDS - start)) s in all; log: $build/ctest.log"
exit "$status"
