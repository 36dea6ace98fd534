#!/usr/bin/env bash
# Gathers the photographs configs/deblur_resnet*.yaml train on: real photos of
# scenes, people and objects that Debian ships as sample images, copied
# unchanged into
#
#   OUT/train/   22 photos (opencv-doc's examples/data, python3-skimage's data)
#   OUT/valid/    5 photos held out for validation
#
# Logos, drawings, renderings, paintings, chessboards and grey calibration
# shots in those folders are left out. OUT appears whole or not at all (built
# in OUT.partial, renamed at the end). Needs the opencv-doc and python3-skimage
# packages (scripts/install-deps.sh installs them).
#
# Usage: scripts/deblur-photos.sh [OUT]     (default data/deblur-photos)
set -euo pipefail
out=${1:-data/deblur-photos}
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
mv "$partial" "$out"
echo "deblur-photos: $(ls "$out/train" | wc -l) training and $(ls "$out/valid" | wc -l) validation photos in $out"
