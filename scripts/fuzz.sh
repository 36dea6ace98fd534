#!/usr/bin/env bash
# Fuzzes every parser of outside input for SECONDS each (default 60):
#   scripts/fuzz.sh [SECONDS]
# The targets (tests/fuzz/) are built with clang's libFuzzer, ASan and UBSan
# in build-fuzz/ (TRAINER_FUZZ_BUILD_DIR), seeded from the test data: the
# configs, an IDX file, Pillow-written images, numpy-written .npz files and
# their pickle, Reuters SGML (when TRAINER_DATA_DIR holds the corpus), a
# checkpoint written by build/trainer and its exported weights (when built). The targets run side by
# side, one per core. Prints each target's executions and findings; a crash,
# a sanitizer report, a leak or a hang (10 s) is a finding, saved under
# build-fuzz/findings/, and makes the exit status 1.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
build=${TRAINER_FUZZ_BUILD_DIR:-build-fuzz}
targets=(config csv idx image npz pickle sgml checkpoint weights)

packages=(clang libclang-rt-14-dev cmake libyaml-cpp-dev libspdlog-dev zlib1g-dev libpng-dev libjpeg-dev libssl-dev
          python3-numpy python3-pil)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  echo "fuzz: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

CXX=clang++ cmake -S tests/fuzz -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
if ! cmake --build "$build" -j"$(nproc)" >"$build/build.log" 2>&1; then
  tail -40 "$build/build.log"
  exit 1
fi

# Seeds: one folder per target.
seeds=$build/seeds
rm -rf "$seeds"
for t in "${targets[@]}"; do mkdir -p "$seeds/$t"; done
for f in configs/*.yaml; do
  cp "$f" "$seeds/config/"
  { echo "--set train.epochs=3"; cat "$f"; } >"$seeds/config/set-$(basename "$f")"
done
# Anchors, aliases and merge keys, which no shipped config uses.
cat >"$seeds/config/merge-keys.yaml" <<'YAML'
experiment: {name: merged}
data: {dataset: synthetic}
model:
  layers:
    - &hidden {type: dense, units: 16, activation: relu}
    - {<<: *hidden, units: 8}
    - <<: [{units: 4, use_bias: false}, *hidden]
    - *hidden
    - {type: dense, units: classes, activation: softmax}
train: &train {epochs: 2, batch_size: 8}
optimizer: {<<: {name: adam, lr: 0.1}, lr: 0.01}
YAML
/usr/bin/python3 - "$seeds" <<'PY'
import io, os, pickle, struct, sys
import numpy as np
seeds = sys.argv[1]
with open(os.path.join(seeds, "idx", "labels.idx"), "wb") as f:
    f.write(bytes([0, 0, 8, 1]) + struct.pack(">I", 5) + bytes([0, 1, 2, 3, 9]))
with open(os.path.join(seeds, "idx", "images.idx"), "wb") as f:
    f.write(bytes([0, 0, 8, 3]) + struct.pack(">III", 2, 3, 3) + bytes(range(18)))
x = np.empty(3, dtype=object)
for i, seq in enumerate([[1, 2, 3], [], [70000, 2 ** 40]]):
    x[i] = seq
with open(os.path.join(seeds, "pickle", "lists.pkl"), "wb") as f:
    pickle.dump(x, f, protocol=3)
with open(os.path.join(seeds, "pickle", "lists2.pkl"), "wb") as f:
    pickle.dump(x, f, protocol=2)
PY
/usr/bin/python3 tests/formats/write_npz.py "$seeds/npz" >/dev/null
/usr/bin/python3 tests/images/write_images.py "$seeds/image" >/dev/null
rm -f "$seeds/image/"*.pixels
# Inputs that were findings once (tests/fuzz/regressions/TARGET/) are seeds
# for ever, so that each run tries them first.
for t in "${targets[@]}"; do
  [ -d "tests/fuzz/regressions/$t" ] && cp tests/fuzz/regressions/"$t"/* "$seeds/$t/"
done
rm -f "$seeds/npz/"*.txt
sgml=${TRAINER_DATA_DIR:-}/reuters21578/reut2-000.sgm
if [ -f "$sgml" ]; then head -c 20000 "$sgml" >"$seeds/sgml/reut2-000-head.sgm"; fi
printf '<REUTERS TOPICS="YES" NEWID="1"><TOPICS><D>earn</D></TOPICS><TEXT><BODY>Profit rose.</BODY></TEXT></REUTERS>\n' \
  >"$seeds/sgml/one.sgm"
if [ -x build/trainer ]; then
  work=$(mktemp -d)
  cat >"$work/e.yaml" <<YAML
experiment: {name: seed}
data: {dataset: synthetic, synthetic: {train_samples: 32, valid_samples: 8, shape: [4], classes: 2}}
model: {layers: [{type: dense, units: classes, activation: softmax}]}
train: {epochs: 1, batch_size: 32}
log: {dir: $work/runs, run_name: r, progress: never}
YAML
  if build/trainer run "$work/e.yaml" --quiet >/dev/null 2>&1; then
    cp "$work"/runs/seed/r/checkpoints/*.pt "$seeds/checkpoint/"
    # Its weights as Python reads them: what init_from takes.
    for format in safetensors npz; do
      build/trainer export --checkpoint "$work/runs/seed/r" -o "$seeds/weights/seed.$format" --quiet >/dev/null 2>&1
    done
    rm -f "$seeds/weights/"*.yaml
  fi
  rm -rf "$work"
fi

mkdir -p "$build/findings"
# Fuzzes TARGET for the given seconds; its exit status goes to a file beside
# its log.
fuzz_target() {  # TARGET
  local t=$1 status=0 dict=()
  mkdir -p "$build/corpus/$t"
  # A target's words (tests/fuzz/TARGET.dict), which mutation alone would seldom put together.
  [ -f "tests/fuzz/$t.dict" ] && dict=(-dict="tests/fuzz/$t.dict")
  "$build/fuzz_$t" "$build/corpus/$t" "$seeds/$t" "${dict[@]}" -max_total_time="$seconds" -timeout=10 \
    -rss_limit_mb=4096 -print_final_stats=1 -artifact_prefix="$build/findings/$t-" >"$build/fuzz_$t.log" 2>&1 ||
    status=$?
  echo "$status" >"$build/fuzz_$t.status"
}
# A fuzzer is one process: the targets run side by side, one per core.
jobs=$(nproc)
pids=()
for i in "${!targets[@]}"; do
  ((i < jobs)) || wait "${pids[i - jobs]}"
  fuzz_target "${targets[i]}" &
  pids[i]=$!
done
wait

findings=0
printf '%-11s %12s %8s  %s\n' target executions corpus findings
for t in "${targets[@]}"; do
  log=$build/fuzz_$t.log
  status=$(cat "$build/fuzz_$t.status")
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
  size=$(find "$build/corpus/$t" -type f | wc -l)
  if [ "$status" -ne 0 ]; then
    findings=$((findings + 1))
    printf '%-11s %12s %8s  %s\n' "$t" "$runs" "$size" "FOUND: $(grep -m1 -E 'ERROR|runtime error|Timeout|leak' "$log" || echo "exit $status"); see $log"
  else
    printf '%-11s %12s %8s  %s\n' "$t" "$runs" "$size" none
  fi
done
echo "fuzz: ${#targets[@]} targets, ${seconds} s each ($jobs at a time), $findings with findings"
[ "$findings" -eq 0 ]
