#!/usr/bin/env bash
# Packs the data sets the GPU check reads into one archive that travels with
# the dependency bundle to a GPU machine with no package archive and no copy
# of them: scripts/gpu-check.sh unpacks it into build-gpu/data and points
# TRAINER_DATA_DIR there. Run it here, after scripts/gpu-bundle.sh. It holds
#
#   reuters21578/    the corpus, from $TRAINER_DATA_DIR/reuters21578 (if there)
#   fashion-mnist/   Debian's dataset-fashion-mnist: the test set whole, the
#                    training set cut to its first N images (--fashion-train,
#                    default 20000, the size the GPU rows are quoted at; 60000
#                    for all of it) to keep the transfer small
#   deblur-photos/   the photos of scripts/deblur-photos.sh, from
#                    data/deblur-photos (if gathered), or from the folder
#                    --photos names (one gathered with --more, say)
#
# --only takes a comma-separated list of those three names and packs those
# alone: a lease given to the deblurring goal's training on the larger photo
# set carries the dependency bundle (about 17 MB) and 114 photos shrunk to
# 1600 pixels (about 34 MB), which fits the 64 MiB a call may carry only
# without the other two sets (docs/development.md). A set that is asked for
# but not here is left out and named. The archive is xz-compressed tar,
# written to a temporary name and renamed when complete.
#
# Usage: scripts/gpu-data.sh [--fashion-train N] [--photos DIR] [--only SETS] [OUT]
#        (default OUT: .gpu-bundle/data.tar.xz; SETS: reuters21578,fashion-mnist,deblur-photos)
set -euo pipefail
cd "$(dirname "$0")/.."
fashion_train=20000
photos=data/deblur-photos
only=reuters21578,fashion-mnist,deblur-photos
out=.gpu-bundle/data.tar.xz
usage="usage: scripts/gpu-data.sh [--fashion-train N] [--photos DIR] [--only SETS] [OUT]"
while [ $# -gt 0 ]; do
  case $1 in
    --fashion-train)
      [[ ${2:-} =~ ^[1-9][0-9]*$ ]] || { echo "gpu-data: --fashion-train needs a number of images" >&2; exit 2; }
      fashion_train=$2
      shift 2 ;;
    --photos)
      [ -n "${2:-}" ] || { echo "gpu-data: --photos needs a folder (one scripts/deblur-photos.sh wrote)" >&2; exit 2; }
      photos=$2
      shift 2 ;;
    --only)
      [[ ${2:-} =~ ^(reuters21578|fashion-mnist|deblur-photos)(,(reuters21578|fashion-mnist|deblur-photos))*$ ]] || {
        echo "gpu-data: --only needs a comma-separated list of reuters21578, fashion-mnist and deblur-photos" >&2
        exit 2
      }
      only=$2
      shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "gpu-data: unknown option $1 ($usage)" >&2; exit 2 ;;
    *) out=$1; shift ;;
  esac
done

wanted() { [[ ,$only, == *,$1,* ]]; }

staging=$(mktemp -d)
trap 'rm -rf "$staging" "$out.partial"' EXIT
packed=()

corpus=${TRAINER_DATA_DIR:-}/reuters21578
if ! wanted reuters21578; then
  :
elif [ -n "${TRAINER_DATA_DIR:-}" ] && [ -d "$corpus" ]; then
  cp -r "$corpus" "$staging/reuters21578"
  packed+=(reuters21578)
else
  echo "gpu-data: no \$TRAINER_DATA_DIR/reuters21578: the Reuters rows and tests will be left out there" >&2
fi

fashion=/usr/share/datasets/fashion-mnist
if ! wanted fashion-mnist; then
  :
elif [ -f "$fashion/train-images-idx3-ubyte.gz" ]; then
  mkdir "$staging/fashion-mnist"
  cp "$fashion"/t10k-*.gz "$staging/fashion-mnist/"
  # The first N records of each training file, their header's count made N.
  python3 - "$fashion" "$staging/fashion-mnist" "$fashion_train" <<'EOF'
import gzip, struct, sys
source, target, keep = sys.argv[1], sys.argv[2], int(sys.argv[3])
for name in ("train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz"):
    with gzip.open(source + "/" + name, "rb") as f:
        data = f.read()
    dims = data[3]
    shape = struct.unpack(">%dI" % dims, data[4:4 + 4 * dims])
    keep = min(keep, shape[0])
    record = 1
    for size in shape[1:]:
        record *= size
    header = data[:4] + struct.pack(">%dI" % dims, keep, *shape[1:])
    body = data[4 + 4 * dims:4 + 4 * dims + keep * record]
    with gzip.open(target + "/" + name, "wb") as f:
        f.write(header + body)
print("gpu-data: Fashion-MNIST's first %d training images" % keep)
EOF
  packed+=(fashion-mnist)
else
  echo "gpu-data: no $fashion (dataset-fashion-mnist): the Fashion-MNIST rows will read the GPU machine's own" >&2
fi

if ! wanted deblur-photos; then
  :
elif [ -d "$photos/train" ]; then
  cp -r "$photos" "$staging/deblur-photos"
  packed+=(deblur-photos)
  echo "gpu-data: $(find "$photos/train" -type f | wc -l) training and $(find "$photos/valid" -type f 2>/dev/null | wc -l) held-out photos from $photos"
else
  echo "gpu-data: no $photos/train (scripts/deblur-photos.sh): the deblurring rows will be left out there" >&2
fi

[ ${#packed[@]} -gt 0 ] || { echo "gpu-data: nothing to pack" >&2; exit 1; }
# Copies of read-only files (a corpus kept read-only) would make the unpacked
# folder one that the next unpacking cannot delete.
chmod -R u+w "$staging"
mkdir -p "$(dirname "$out")"
tar -C "$staging" -cf - "${packed[@]}" | xz -T0 -6 >"$out.partial"
mv "$out.partial" "$out"
echo "gpu-data: ${packed[*]} in $out ($(du -h "$out" | cut -f1))"
