# Debian chroots for the checks that need another Debian than this machine's
# (scripts/check-libtorch2.sh, scripts/check-fresh-debian.sh). Sourced, not
# run. The caller sets `tool` (its name, for messages) before sourcing.
# Debian's archive only; nothing else is downloaded.

mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"

# The machine cannot host a chroot: fail, or with TRAINER_CHECK_IF_POSSIBLE=1
# (CI) say so and succeed.
cannot_check() {
  if [ "${TRAINER_CHECK_IF_POSSIBLE:-0}" = 1 ]; then
    echo "$tool: SKIPPED: $1"
    exit 0
  fi
  echo "$tool: $1" >&2
  exit 1
}

chroot_preflight() {
  if [ -n "$sudo" ] && ! sudo -n true 2>/dev/null; then cannot_check "needs root or password-less sudo"; fi
  local probe
  probe=$(mktemp -d)
  if ! $sudo mount --bind "$probe" "$probe" 2>/dev/null; then
    rmdir "$probe"
    cannot_check "bind mounts are not permitted here (the chroots need /proc, /dev and the sources)"
  fi
  $sudo umount "$probe"
  rmdir "$probe"
}

# Every bind mount made here is undone on exit, last first.
mounted=()
unmount_all() {
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do $sudo umount -l "${mounted[i]}" 2>/dev/null || true; done
  mounted=()
}
trap unmount_all EXIT

# A mount already there (left by a killed run, or made by hand) is replaced:
# kept, it could hold another source tree than this one.
bind() {  # SOURCE TARGET
  $sudo mkdir -p "$2"
  if mountpoint -q "$2"; then $sudo umount -l "$2"; fi
  $sudo mount --bind "$1" "$2" && mounted+=("$2")
}

# OpenBLAS's kernel choice, where the machine sets one: on some processors
# OPENBLAS_CORETYPE (and OPENBLAS_L2_SIZE) are set because OpenBLAS's own
# choice there computes wrong results or crashes. The first CI stage runs
# with them; a chroot must too, or its float32 products (convolutions, dense
# layers) can differ from the float64 references its tests compare with.
openblas_settings=()
for name in OPENBLAS_CORETYPE OPENBLAS_L2_SIZE; do
  [ -n "${!name:-}" ] && openblas_settings+=("$name=${!name}")
done

# A command in ROOT as root, in a clean environment (but for the machine's
# OpenBLAS settings above).
in_root() {  # ROOT COMMAND...
  local root=$1
  shift
  $sudo chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
    DEBIAN_FRONTEND=noninteractive "${openblas_settings[@]}" bash -c "$*"
}

# A minimal Debian SUITE in ROOT (kept when already there), with /proc and
# /dev mounted. A root whose debootstrap did not finish (the stamp file is
# written last) is made again from scratch.
debian_root() {  # ROOT SUITE COMPONENTS
  local root=$1 suite=$2 components=$3
  if [ ! -e "$root/.debootstrap-done" ]; then
    command -v debootstrap >/dev/null || $sudo apt-get install -y -qq debootstrap
    echo "$tool: debootstrap $suite into $root"
    # Nothing mounted inside may go with it (a killed run's binds of the sources).
    local mount
    for mount in $(awk -v r="$root/" 'index($2, r) == 1 {print $2}' /proc/mounts | sort -r); do
      $sudo umount -l "$mount"
    done
    if awk -v r="$root/" 'index($2, r) == 1' /proc/mounts | grep -q .; then
      echo "$tool: $root still has file systems mounted inside; not deleting it" >&2
      exit 1
    fi
    $sudo rm -rf "$root"
    $sudo mkdir -p "$root"
    $sudo debootstrap --variant=minbase --components="$components" "$suite" "$root" "$mirror" \
      >"$root.debootstrap.log" 2>&1 || { tail -20 "$root.debootstrap.log"; exit 1; }
    $sudo touch "$root/.debootstrap-done"
  fi
  bind /proc "$root/proc"
  bind /dev "$root/dev"
  bind /dev/pts "$root/dev/pts"
}
