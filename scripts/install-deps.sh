#!/usr/bin/env bash
# Installs everything needed to build, run and test trainer on Debian 12.
# Idempotent: packages already present are left alone, so it is cheap to re-run.
set -euo pipefail

packages=(
  build-essential cmake ccache pkg-config
  help2man                # the man page, written from trainer's own --help at build time
  libtorch-dev            # LibTorch 1.13 (CPU)
  libgloo-dev             # headers that c10d's ProcessGroupGloo needs
  libyaml-cpp-dev libcli11-dev libspdlog-dev libfmt-dev catch2
  nlohmann-json3-dev      # everything trainer writes as JSON (metrics.jsonl, run.json, --json)
  zlib1g-dev              # gzip'd IDX files and deflated .npz members
  libpng-dev libjpeg-dev  # decoding PNG and JPEG images (libjpeg-turbo); see docs/data.md
  libcurl4-openssl-dev libssl-dev  # downloading reuters.npz, checking its SHA-256
  libprotobuf-dev protobuf-compiler  # TensorBoard event files (event.proto compiled at build time)
  libopenblas0-pthread    # LibTorch's fp32 Linear goes through libblas.so.3; see README "BLAS"
  dataset-fashion-mnist   # the real Fashion-MNIST, used by the quick start and tests
  python3-numpy python3-torch  # reference values in tests (npz files, NAdam) and bench/
  python3-protobuf        # tests decode the TensorBoard event files trainer writes
  chromium                # tests render the HTML run report in a real (headless) browser
  python3-pil             # a second image decoder the image tests compare with
  zsh fish                # tests run the zsh and fish completion scripts in those shells
  python3-skimage         # PSNR and SSIM the image metrics are tested against; sample photos
  opencv-doc              # sample photographs the deblurring configs train on (scripts/deblur-photos.sh)
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages already installed"
  exit 0
fi

sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
echo "install-deps: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
