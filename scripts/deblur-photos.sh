#!/usr/bin/env bash
# Gathers the photographs configs/deblur_resnet*.yaml train on: real photos of
# scenes, people, animals, plants and objects that Debian ships, copied into
#
#   OUT/train/   22 photos (opencv-doc's examples/data, python3-skimage's data)
#   OUT/valid/    5 photos held out for validation
#
# and with --more, 87 more (71 for training, 16 held out: 114 in all, 21 held
# out) from the wallpapers, sample images and documentation of 17 other
# packages, listed with their licences in scripts/deblur-photos-more.tsv and
# docs/deblurring.md. Those packages are not installed: their .deb files are
# fetched from the Debian archive with `apt-get download` (signed and checked
# as apt checks every download) into a cache, and unpacked there, so that the
# gathering pulls in none of their dependencies (GTK for gramps, say) and
# needs no root.
#
# Logos, drawings, renderings, paintings, chessboards and grey calibration
# shots in those folders are left out. Photos are copied unchanged unless
# --max-side N is given: then any whose longer side exceeds N pixels is
# shrunk to N (Lanczos, python3-pil; JPEG quality 95), for machines with
# little memory or a copy sent over a small link. OUT appears whole or not at
# all (built in OUT.partial, renamed at the end). The base set needs the
# opencv-doc and python3-skimage packages (scripts/install-deps.sh installs
# them).
#
# Usage: scripts/deblur-photos.sh [--more] [--max-side N] [OUT]   (default OUT: data/deblur-photos)
# Environment: TRAINER_PHOTO_CACHE   where --more keeps the packages (default ~/.cache/trainer/photo-packages)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
more=0
max_side=0
out=""
while [ $# -gt 0 ]; do
  case $1 in
    --more) more=1 ;;
    --max-side)
      [ $# -ge 2 ] || { echo "deblur-photos: --max-side needs a number of pixels" >&2; exit 2; }
      max_side=$2
      shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "deblur-photos: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) [ -z "$out" ] || { echo "deblur-photos: one OUT folder, got '$out' and '$1'" >&2; exit 2; }
       out=$1 ;;
  esac
  shift
done
out=${out:-data/deblur-photos}
if ! [[ $max_side =~ ^[0-9]+$ ]] || { [ "$max_side" -ne 0 ] && [ "$max_side" -lt 64 ]; }; then
  echo "deblur-photos: --max-side expects a number of pixels >= 64, got '$max_side'" >&2
  exit 2
fi

opencv=/usr/share/doc/opencv-doc/examples/data
skimage=/usr/lib/python3/dist-packages/skimage/data

# opencv-doc: aerial photos, a stereo pair's left view, portraits, fruit,
# buildings, a circuit board, insects, toys, a sudoku page, graffiti.
train_opencv=(aero1.jpg aero3.jpg aloeL.jpg apple.jpg baboon.jpg board.jpg butterfly.jpg ela_original.jpg
  graf1.png home.jpg leuvenA.jpg left.jpg orange.jpg rubberwhale1.png smarties.png squirrel_cls.jpg
  stuff.jpg sudoku.png)
# python3-skimage: an astronaut, a rocket launch, a motorcycle, a retina.
train_skimage=(astronaut.png rocket.jpg motorcycle_left.png retina.jpg)
# Held out: a building, fruit, a footballer, a cat, a cup of coffee.
valid_opencv=(building.jpg fruits.jpg messi5.jpg)
valid_skimage=(chelsea.png coffee.png)

for dir in "$opencv" "$skimage"; do
  if [ ! -d "$dir" ]; then
    echo "deblur-photos: $dir is missing; install opencv-doc and python3-skimage (scripts/install-deps.sh)" >&2
    exit 1
  fi
done
if [ -e "$out" ]; then
  echo "deblur-photos: $out exists; remove it first to rebuild it" >&2
  exit 1
fi
partial="$out.partial"
rm -rf "$partial"
mkdir -p "$partial/train" "$partial/valid"
copy() {  # DIR SPLIT FILES...
  local dir=$1 split=$2
  shift 2
  for name in "$@"; do cp "$dir/$name" "$partial/$split/$name"; done
}
copy "$opencv" train "${train_opencv[@]}"
copy "$skimage" train "${train_skimage[@]}"
copy "$opencv" valid "${valid_opencv[@]}"
copy "$skimage" valid "${valid_skimage[@]}"

if [ "$more" = 1 ]; then
  manifest="$here/deblur-photos-more.tsv"
  cache=${TRAINER_PHOTO_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/trainer/photo-packages}
  mkdir -p "$cache/debs" "$cache/unpacked"
  mapfile -t packages < <(grep -v '^#' "$manifest" | cut -f1 | sort -u)
  missing=()
  for p in "${packages[@]}"; do
    [ -d "$cache/unpacked/$p" ] || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "deblur-photos: fetching ${#missing[@]} packages into $cache: ${missing[*]}"
    if ! (cd "$cache/debs" && apt-get download -q "${missing[@]}"); then
      echo "deblur-photos: apt-get download failed; its package lists may be missing or old (sudo apt-get update)" >&2
      exit 1
    fi
    for p in "${missing[@]}"; do
      deb=$(ls "$cache/debs/${p}_"*.deb | tail -1)
      rm -rf "$cache/unpacked/$p.partial"
      dpkg-deb -x "$deb" "$cache/unpacked/$p.partial"
      mv "$cache/unpacked/$p.partial" "$cache/unpacked/$p"
    done
  fi
  while IFS=$'\t' read -r package path split _; do
    case $package in '#'*|'') continue ;; esac
    # Plasma's wallpapers are folders of one photo named by its size.
    name=$(basename "$path")
    [[ $path == /usr/share/wallpapers/* ]] && name="$(echo "$path" | cut -d/ -f5).${name##*.}"
    if [ -e "$partial/$split/$name" ]; then
      echo "deblur-photos: two photos would be $split/$name; rename one in $manifest" >&2
      exit 1
    fi
    cp "$cache/unpacked/$package$path" "$partial/$split/$name"
  done < "$manifest"
fi

if [ "$max_side" -gt 0 ]; then
  python=/usr/bin/python3  # Debian's, with python3-pil
  [ -x "$python" ] || python=python3
  "$python" - "$partial" "$max_side" <<'EOF'
import pathlib, sys
from PIL import Image

root, side = pathlib.Path(sys.argv[1]), int(sys.argv[2])
for path in sorted(root.glob("*/*")):
    with Image.open(path) as image:
        if max(image.size) <= side:
            continue
        image.load()
        shrunk = image.copy()
    shrunk.thumbnail((side, side), Image.LANCZOS)
    if path.suffix.lower() in (".jpg", ".jpeg"):
        shrunk.convert("RGB").save(path, quality=95)
    else:
        shrunk.save(path)
EOF
fi
mv "$partial" "$out"
echo "deblur-photos: $(ls "$out/train" | wc -l) training and $(ls "$out/valid" | wc -l) validation photos in $out"
