#!/usr/bin/env bash
# The CPU half of the GPU check's dependency path, run here: makes the bundle
# (scripts/gpu-bundle.sh), unpacks it into a private prefix exactly as
# scripts/gpu-check.sh does on a GPU machine, and builds the trainer against
# it with this machine's own copies of those packages hidden: in a private
# mount namespace, every header folder and CMake/pkg-config file that the
# bundled development packages installed here is covered by an empty one.
# Then it checks that CMake found each package in the prefix, that the binary
# loads yaml-cpp, spdlog, fmt, curl, OpenSSL, zlib, libpng, libjpeg and protobuf-lite from
# it, and that it trains a short synthetic run (protoc, too, is the bundle's). LibTorch is this machine's
# (1.13, CPU).
#
# CI runs it with TRAINER_CHECK_IF_POSSIBLE=1: where no mount namespace can be
# made (not root) it says "SKIPPED" and why, and succeeds; a failed build or
# check always fails it.
#
# Usage: scripts/check-gpu-bundle.sh   (root, or sudo)
set -euo pipefail
cd "$(dirname "$0")/.."
tool=check-gpu-bundle
# shellcheck source=scripts/lib/gpu_bundle.sh
source scripts/lib/gpu_bundle.sh
# shellcheck source=scripts/lib/cmake_generator.sh
source scripts/lib/cmake_generator.sh
work=${TRAINER_BUNDLE_CHECK_DIR:-/var/tmp/trainer-gpu-bundle-check}

sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
if ! $sudo unshare --mount true 2>/dev/null; then
  if [ "${TRAINER_CHECK_IF_POSSIBLE:-0}" = 1 ]; then
    echo "$tool: SKIPPED: cannot make a private mount namespace (needs root)"
    exit 0
  fi
  echo "$tool: needs root (or sudo) for a private mount namespace" >&2
  exit 1
fi

start=$SECONDS
scripts/gpu-bundle.sh "$work/bundle"
prefix=$work/deps
unpack_bundle "$work/bundle" "$prefix"
mapfile -t bundle_args < <(bundle_cmake_args "$prefix")

# What to cover: for every bundled -dev package installed here, the top
# folder (or file) of each header it installed, and its CMake and pkg-config
# files' folders.
hidden=$(
  for package in $(sed -n 's/^\([^=]*-dev\|catch2\)=.*/\1/p' "$work/bundle/MANIFEST"); do
    dpkg-query -L "$package" 2>/dev/null || true
  done | sed -n -E \
    -e 's#^(/usr/include/x86_64-linux-gnu/[^/]+).*#\1#p' \
    -e '\#^/usr/include/x86_64-linux-gnu#!s#^(/usr/include/[^/]+).*#\1#p' \
    -e 's#^(/usr/(lib|share)/([^/]+/)?cmake/[^/]+)/.*#\1#p' \
    -e 's#^(/usr/(lib|share)/([^/]+/)?pkgconfig/[^/]+\.pc)$#\1#p' \
  | grep -v -x -E '/usr/include/x86_64-linux-gnu' | sort -u
)
echo "$tool: hiding $(wc -l <<<"$hidden") system paths of the bundled packages"

build=$work/build
rm -rf "$build"
# The build tool the GPU check picks, so that its path is the one checked.
mapfile -t generator < <(cmake_generator_args "$build")
# shellcheck disable=SC2016
$sudo unshare --mount --propagation private env HIDDEN="$hidden" BUILD="$build" PREFIX="$prefix" bash -euo pipefail -c '
  empty=$(mktemp -d)
  while IFS= read -r path; do
    [ -n "$path" ] || continue
    # A link into a folder already covered (png.h -> libpng16/png.h) leads
    # nowhere now: nothing left to cover.
    if [ -L "$path" ] && [ ! -e "$path" ]; then continue; fi
    if [ -d "$path" ]; then mount --bind "$empty" "$path"; else mount --bind /dev/null "$path"; fi
  done <<<"$HIDDEN"
  for header in /usr/include/yaml-cpp/yaml.h /usr/include/png.h /usr/include/jpeglib.h; do
    [ ! -s "$header" ] || { echo "$header still visible" >&2; exit 1; }
  done
  cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DTRAINER_BUILD_TESTS=OFF \
        "-DCMAKE_PREFIX_PATH=$PREFIX/usr" "$@"
  cmake --build "$BUILD" -j"$(nproc)" --target trainer
' check "${generator[@]}" "${bundle_args[@]}"

failures=0
check() {  # DESCRIPTION COMMAND...: a named pass/fail line
  if "${@:2}"; then echo "$tool: ok: $1"; else echo "$tool: FAILED: $1" >&2; failures=$((failures + 1)); fi
}
found_in_prefix() {  # CACHE_ENTRY: CMake's result for it lies in the prefix
  grep -q "^$1:[A-Z]*=$prefix/" "$build/CMakeCache.txt"
}
for entry in yaml-cpp_DIR spdlog_DIR fmt_DIR CLI11_DIR nlohmann_json_DIR CURL_LIBRARY_RELEASE OPENSSL_SSL_LIBRARY ZLIB_LIBRARY_RELEASE \
             PNG_LIBRARY_RELEASE JPEG_LIBRARY_RELEASE Protobuf_LITE_LIBRARY_RELEASE Protobuf_PROTOC_EXECUTABLE; do
  check "CMake found $entry in the bundle" found_in_prefix "$entry"
done
loads_from_prefix() {  # LIBRARY: the binary loads it from the prefix
  ldd "$build/trainer" | grep -E "^\s*$1" | grep -q "$prefix/"
}
for library in libyaml-cpp libspdlog libfmt libcurl libssl libz libpng16 libjpeg libprotobuf-lite; do
  check "trainer loads $library from the bundle" loads_from_prefix "$library"
done
first_needed_is_libstdcxx() { readelf -d "$build/trainer" | grep -m1 NEEDED | grep -q 'libstdc++'; }
check "libstdc++ is the first library the trainer needs" first_needed_is_libstdcxx
trains() {
  local run=$work/run
  rm -rf "$run"
  mkdir -p "$run"
  cat >"$run/experiment.yaml" <<'YAML'
experiment: {name: bundle-check}
data: {dataset: synthetic, synthetic: {train_samples: 256, valid_samples: 64, shape: [16], classes: 4}}
model:
  layers:
    - {type: dense, units: 32, activation: relu}
    - {type: dense, units: classes, activation: softmax}
train: {epochs: 2, batch_size: 32}
log: {dir: runs}
YAML
  (cd "$run" && "$build/trainer" run experiment.yaml --quiet) | grep -c '^Epoch' | grep -qx 2 &&
    compgen -G "$run/runs/bundle-check/*/events.out.tfevents.*" >/dev/null
}
check "the bundle-built trainer trains two epochs and writes a TensorBoard file" trains
# The data archive that travels beside the bundle (scripts/gpu-data.sh),
# unpacked as the GPU check unpacks it: trainer reads the cut Fashion-MNIST
# training set from it.
reads_carried_data() {
  [ -f /usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz ] || return 0
  local log
  # Into a variable first: grep -q would close the pipe early, and under
  # pipefail trainer's SIGPIPE would fail the check.
  scripts/gpu-data.sh --fashion-train 1000 "$work/data.tar.xz" >/dev/null &&
    unpack_data "$work/data.tar.xz" "$work/data" &&
    log=$(TRAINER_DATA_DIR=$work/data "$build/trainer" bench configs/fashion_mnist_cnn.yaml --steps 1 --warmup 0 2>&1) &&
    grep -q 'fashion_mnist, 1000 train / 10000 valid' <<<"$log"
}
check "the data sets packed by gpu-data.sh are read from TRAINER_DATA_DIR" reads_carried_data
echo "$tool: $((SECONDS - start)) s; $failures check(s) failed"
[ "$failures" -eq 0 ]
