#!/usr/bin/env bash
# Packs trainer's build dependencies for a GPU machine that has a CUDA PyTorch,
# CMake and a compiler but no package archive (the usual rented GPU image).
# Run it here, on a Debian 12 machine with the archive: it downloads (never
# installs) Debian 12's packages into one folder, by default .gpu-bundle/
# (ignored by git, ~15 MB). Carry that folder to the GPU machine;
# scripts/gpu-check.sh unpacks it into a private prefix there (never into /).
#
# What is in it:
#   - the development packages: headers, CMake configs, link-time .so names,
#     and protoc (protobuf-compiler), which compiles event.proto at build time;
#     libgloo-dev alone, without its dependencies: the PyTorch wheel has Gloo
#     built in and ships no Gloo headers, which c10d's ProcessGroupGloo needs;
#   - the run-time libraries those link against, with everything they need in
#     turn (curl pulls in TLS, Kerberos, LDAP...), so that the binary loads the
#     same, tested set whatever the GPU machine's own versions are;
#   - never the C library, libstdc++ or libgcc: those must be the GPU machine's
#     own, matching its compiler.
# MANIFEST in the folder lists package=version, one a line.
#
# Usage: scripts/gpu-bundle.sh [DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
bundle=${1:-.gpu-bundle}

dev_packages=(libyaml-cpp-dev libcli11-dev libspdlog-dev libfmt-dev catch2 libgloo-dev nlohmann-json3-dev
              zlib1g-dev libpng-dev libjpeg62-turbo-dev libcurl4-openssl-dev libssl-dev
              libprotobuf-dev protobuf-compiler)
runtime_roots=(libyaml-cpp0.7 libspdlog1.10 libfmt9 libcurl4 libssl3 zlib1g libpng16-16 libjpeg62-turbo
               libprotobuf-lite32 libprotobuf32 libprotoc32)
from_target_system='^(libc6|libgcc-s1|libstdc\+\+6|gcc-[0-9]+-base)$'

if ! command -v apt-get >/dev/null || ! grep -q '^VERSION_ID="12"' /etc/os-release 2>/dev/null; then
  echo "gpu-bundle: run this on Debian 12 (bookworm): the bundle must hold bookworm's packages" >&2
  exit 2
fi

# Real package names only: apt-cache lists virtual ones as <name>.
runtime=$(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
            --no-replaces --no-enhances "${runtime_roots[@]}" \
          | grep -v '^ ' | grep -v '^<' | grep -Ev "$from_target_system" | sort -u)

staging=$(mktemp -d)
trap 'rm -rf "$staging"' EXIT
# apt drops privileges to _apt while downloading; let it write here.
chmod 777 "$staging"
echo "gpu-bundle: downloading ${#dev_packages[@]} development and $(wc -w <<<"$runtime") run-time packages"
(cd "$staging" && apt-get download -qq "${dev_packages[@]}" $runtime)

for deb in "$staging"/*.deb; do
  dpkg-deb -f "$deb" Package Version | paste -sd= | sed 's/^Package: //; s/=Version: /=/'
done | sort > "$staging/MANIFEST"

# Replace the old bundle only once the new one is complete.
rm -rf "$bundle.new"
mkdir -p "$bundle.new"
mv "$staging"/*.deb "$staging/MANIFEST" "$bundle.new/"
rm -rf "$bundle"
mv "$bundle.new" "$bundle"
echo "gpu-bundle: $(ls "$bundle"/*.deb | wc -l) packages, $(du -sh "$bundle" | cut -f1), in $bundle/ (list: $bundle/MANIFEST)"
