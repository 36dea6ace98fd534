#!/usr/bin/env bash
# The README's quick start, exactly as written, on a fresh Debian 12: a new
# `debootstrap --variant=minbase bookworm` chroot (no compiler, no Python, no
# LibTorch), a copy of the committed tree (`git archive HEAD`, as a fresh
# clone has it, without ../shared), then, as root in its root directory,
#   scripts/install-deps.sh && scripts/build.sh && build/trainer run configs/fashion_mnist_quickstart.yaml
#   scripts/run-tests.sh
# Each command's exit status and time is printed; the chroot is deleted
# afterwards (TRAINER_KEEP_ROOT=1 keeps it for a look). Not part of CI (it
# builds everything from nothing: about half an hour on 2 cores); run it
# after changing the scripts, the dependencies or the build.
#
# Usage: scripts/check-fresh-debian.sh   (root, or sudo)
set -euo pipefail
cd "$(dirname "$0")/.."
tool=check-fresh-debian
# shellcheck source=scripts/lib/chroot.sh
source scripts/lib/chroot.sh
root=${TRAINER_CHROOTS:-/var/tmp/trainer-chroots}/bookworm-fresh
checkout=/home/user/trainer

remove_root() {
  unmount_all
  if grep -q " $root[/ ]" /proc/mounts; then
    echo "$tool: something is still mounted under $root; not deleting it" >&2
    return
  fi
  $sudo rm -rf "$root" "$root.debootstrap.log"
}
finish() {
  if [ "${TRAINER_KEEP_ROOT:-0}" = 1 ]; then unmount_all; echo "$tool: kept $root"; else remove_root; fi
}
trap finish EXIT

timed() {  # LABEL COMMAND
  local label=$1 begin status
  begin=$(date +%s)
  set +e
  in_root "$root" "cd $checkout && $2"
  status=$?
  set -e
  echo "$tool: '$label' exited $status after $(($(date +%s) - begin)) s"
  return $status
}

chroot_preflight
[ -e "$root" ] && remove_root
start=$(date +%s)
debian_root "$root" bookworm main
$sudo mkdir -p "$root$checkout"
git archive HEAD | $sudo tar -x -C "$root$checkout"
echo "$tool: $(git rev-parse --short HEAD) copied into a fresh bookworm at $root"
timed "quick start" \
  "scripts/install-deps.sh && scripts/build.sh && build/trainer run configs/fashion_mnist_quickstart.yaml" | tail -25
timed "tests" "scripts/run-tests.sh" | tail -25
echo "$tool: done in $(($(date +%s) - start)) s"
