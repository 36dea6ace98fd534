#!/usr/bin/env bash
# The LibTorch 2.x check. Users build trainer against LibTorch 2.x as well as
# Debian 12's 1.13; this machine has only 1.13 and no GPU, so this script
#   1. builds trainer and runs the tests that touch version-dependent APIs
#      (tests/libtorch2_tests.txt names them) against Debian trixie's
#      libtorch-dev 2.6 (CPU) in a chroot made with debootstrap, and
#   2. compiles every CUDA/NCCL path and the GPU tests, and links the
#      trainer, against trixie's libtorch-cuda-dev 2.6 and libnccl-dev in a
#      second chroot (they cannot run here: no GPU). cuDNN is not in Debian's archive, so the link allows
#      undefined symbols in shared libraries.
# Debian's packages only, from its archive; nothing else is downloaded.
# The chroots are kept (TRAINER_CHROOTS, default /var/tmp/trainer-chroots) and
# reused, with a compiler cache in each (ccache, in the chroot's /root/.cache):
# a fresh clone's files are all new to make, but a second run recompiles only
# the sources whose contents changed.
#
# CI runs it as its second stage with TRAINER_CHECK_IF_POSSIBLE=1: where no
# chroot can be made (not root, bind mounts not permitted) it then says
# "SKIPPED" and why, and succeeds; a failed build or test always fails it.
#
# Usage: scripts/check-libtorch2.sh [prepare|cpu|cuda|all]   (root, or sudo; default all)
set -euo pipefail
cd "$(dirname "$0")/.."
source_dir=$(pwd)
stage=${1:-all}
chroots=${TRAINER_CHROOTS:-/var/tmp/trainer-chroots}
jobs=$(nproc)
tool=check-libtorch2
# shellcheck source=scripts/lib/chroot.sh
source scripts/lib/chroot.sh

build_packages="build-essential cmake pkg-config libgloo-dev libyaml-cpp-dev libcli11-dev libspdlog-dev libfmt-dev nlohmann-json3-dev"
build_packages+=" zlib1g-dev libpng-dev libjpeg-dev libcurl4-openssl-dev libssl-dev libprotobuf-dev protobuf-compiler ccache"
# Ninja: the first stage and the GPU machine build with it where it is installed
# (scripts/lib/cmake_generator.sh), and so do both chroots.
build_packages+=" ninja-build"

# A minimal trixie with contrib and non-free, and bookworm's Catch2 v2 (the
# tests are written for Catch2 2.x; trixie ships 3.x).
make_root() {  # ROOT
  local root=$1
  local fresh=0
  [ -e "$root/.debootstrap-done" ] || fresh=1
  debian_root "$root" trixie main,contrib,non-free,non-free-firmware
  if [ $fresh = 1 ]; then
    in_root "$root" "echo 'deb $mirror bookworm main' > /etc/apt/sources.list.d/bookworm.list
      printf 'Package: *\nPin: release n=bookworm\nPin-Priority: 100\n' > /etc/apt/preferences.d/bookworm"
  fi
  bind "$source_dir" "$root/src"
  [ -d "$source_dir/../shared" ] && bind "$source_dir/../shared" "$root/shared"
  in_root "$root" "apt-get update -qq"
}

install_in() {  # ROOT PACKAGES...
  local root=$1
  shift
  # dpkg --configure -a: finishes an install a killed run left half done.
  in_root "$root" "dpkg --configure -a >/var/log/trainer-install.log 2>&1 &&
    apt-get install -y -qq --no-install-recommends $* >>/var/log/trainer-install.log 2>&1 ||
    { tail -30 /var/log/trainer-install.log; exit 1; }
    apt-get install -y -qq --no-install-recommends --allow-downgrades catch2/bookworm >>/var/log/trainer-install.log 2>&1 ||
    { tail -30 /var/log/trainer-install.log; exit 1; }"
}

# A build whose failure fails the stage (a trainer left by an earlier build
# in a kept chroot must not hide it), its errors and warnings shown.
build_command() {  # BUILD_DIR [CMAKE_BUILD_ARGS...]
  local dir=$1
  shift
  echo "cmake --build $dir -j$jobs $* >$dir.log 2>&1; status=\$?
    grep -E 'error|warning' -A3 $dir.log | head -60
    [ \$status -eq 0 ] || { echo 'check-libtorch2: the build failed (the log: $dir.log in the chroot)'; exit 1; }"
}

# Configures BUILD_DIR with Ninja, as the first stage and the GPU machine
# build where it is installed (scripts/lib/cmake_generator.sh). A kept folder
# made for the Makefiles by an earlier version of this script is made anew:
# CMake will not change a folder's generator (ccache keeps that cheap).
configure_command() {  # BUILD_DIR [CMAKE_ARGS...]
  local dir=$1
  shift
  echo "grep -qs '^CMAKE_GENERATOR:INTERNAL=Ninja\$' $dir/CMakeCache.txt || rm -rf $dir
    cmake -S /src -B $dir -G Ninja -DCMAKE_BUILD_TYPE=Release -DTRAINER_BUILD_TESTS=ON -DTRAINER_USE_CCACHE=ON $* \
      >$dir.configure.log 2>&1 || { tail -30 $dir.configure.log; exit 1; }"
}

cpu_root=$chroots/trixie-libtorch2
cuda_root=$chroots/trixie-libtorch2-cuda

prepare_cpu() {
  make_root "$cpu_root"
  install_in "$cpu_root" "$build_packages libtorch-dev libopenblas0-pthread dataset-fashion-mnist python3-numpy python3-torch python3-pil python3-skimage python3-protobuf"
}

prepare_cuda() {
  make_root "$cuda_root"
  # nvidia-cudnn would fetch cuDNN from NVIDIA: decline, the headers suffice.
  in_root "$cuda_root" "echo 'nvidia-cudnn nvidia-cudnn/question select I Decline' | debconf-set-selections"
  # The CUDA LibTorch comes with its own Gloo (libgloo-cuda-dev conflicts with libgloo-dev).
  install_in "$cuda_root" "${build_packages/libgloo-dev/libgloo-cuda-dev} libtorch-cuda-dev libnccl-dev nvidia-cuda-toolkit-gcc"
}

check_cpu() {
  local root=$cpu_root
  prepare_cpu
  echo "check-libtorch2: building and testing against $(in_root "$root" "dpkg-query -W -f='\${Version}' libtorch-dev")"
  # Which kernels the LibTorch and OpenBLAS in the chroot will pick depends on
  # the processor: a failure seen on one machine only is read with this line.
  echo "check-libtorch2: on $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)${openblas_settings[*]:+, with ${openblas_settings[*]}}"
  in_root "$root" "$(configure_command /build)
    $(build_command /build --target trainer trainer_tests_torch trainer_tests_fast)"
  # The tests that touch version-dependent APIs, as tests/libtorch2_tests.txt
  # names them; the whole suite runs on Debian 12's LibTorch in the first
  # stage. Every test case that a line's spec selects (once, however many
  # lines select it) runs through ctest, as the first stage runs the suite:
  # a process each, as many at once as there are cores, under the same time
  # limits and SKIPPED rule. One Catch process a line, one line after
  # another, took 324 s on 2 cores.
  local selected=/build/libtorch2-tests.txt
  in_root "$root" ": >$selected"
  local exe spec
  while read -r exe spec; do
    case "$exe" in ''|'#'*) continue ;; esac
    # A spec that matches nothing would pass having run nothing.
    in_root "$root" "cd /build/tests && listed=\$(./$exe '$spec' --list-test-names-only)
      [ -n \"\$listed\" ] || { echo 'check-libtorch2: $exe $spec selects no test'; exit 1; }
      printf '%s\n' \"\$listed\" >>$selected" </dev/null
  done <tests/libtorch2_tests.txt
  local data_dir=""
  [ -d "$source_dir/../shared/data/reuters21578" ] && data_dir="TRAINER_DATA_DIR=/shared/data"
  in_root "$root" "cd /build/tests && sort -u -o $selected $selected
    # A name ctest does not know would be left out unseen (ctest -N lists its names).
    unknown=\$(ctest -N | sed -n 's/^ *Test *#[0-9]*: //p' | sort -u | comm -13 - $selected)
    [ -z \"\$unknown\" ] || { echo \"check-libtorch2: ctest has no test named: \$unknown\"; exit 1; }
    count=\$(wc -l <$selected)
    $data_dir ctest -j$jobs --tests-from-file $selected --output-on-failure >/build/libtorch2-tests.log 2>&1; status=\$?
    summary=\$(grep -E '^[0-9]+% tests passed' /build/libtorch2-tests.log)
    if [ \$status -eq 0 ] && grep -q \"out of \$count\$\" <<<\"\$summary\"; then
      echo \"check-libtorch2: \$summary (\$(grep -c '(Skipped)\$' /build/libtorch2-tests.log) skipped), in \$(sed -n 's/^Total Test time (real) = *//p' /build/libtorch2-tests.log)\"
    else tail -300 /build/libtorch2-tests.log
      echo 'check-libtorch2: the failed tests, their output first:'
      awk -f /src/scripts/lib/ctest_failures.awk /build/libtorch2-tests.log
      echo \"check-libtorch2: tests failed, or not the \$count selected (the log: /build/libtorch2-tests.log in the chroot)\"; exit 1; fi"
}

check_cuda() {
  local root=$cuda_root
  prepare_cuda
  echo "check-libtorch2: compiling and linking the CUDA/NCCL paths against $(in_root "$root" "dpkg-query -W -f='\${Version}' libtorch-cuda-dev")"
  # The trainer and the GPU tests' objects are built (the other tests are the
  # same sources the CPU stage compiles against the same LibTorch headers);
  # test executables are not linked, as listing their tests would run them,
  # and they need cuDNN.
  # Ampere and Hopper code only (TORCH_CUDA_ARCH_LIST): with no GPU to find,
  # Torch's CMake config would ask nvcc for six architectures, and the four
  # .cu files took 498 s of the two cores' time instead of 230.
  in_root "$root" "$(configure_command /build-cuda "'-DTORCH_CUDA_ARCH_LIST=8.0;9.0'" -DCMAKE_EXE_LINKER_FLAGS=-Wl,--allow-shlib-undefined)
    grep -q \"CUDA kernels are compiled for: sm_80;sm_90\$\" /build-cuda.configure.log ||
      { grep 'CUDA kernels\|CUDA NVCC flags' /build-cuda.configure.log; echo 'check-libtorch2: the CUDA kernels are not built for sm_80 and sm_90 alone'; exit 1; }
    grep -A1 '^build lib/distributed/CMakeFiles/trainer_distributed.dir/' /build-cuda/build.ninja | grep DEFINES |
      grep -q USE_C10D_NCCL || { echo 'check-libtorch2: the CUDA Torch target did not define USE_C10D_NCCL'; exit 1; }
    $(build_command /build-cuda --target trainer trainer_gpu_test_objects)
    nm -C /build-cuda/trainer | grep -q 'c10d::ProcessGroupNCCL::ProcessGroupNCCL' &&
      echo 'check-libtorch2: CUDA build linked, with the NCCL group compiled in'"
}

start=$(date +%s)
chroot_preflight
case "$stage" in
  # The chroots made and their packages installed, nothing built: CI runs
  # this in the background while its first stages compile.
  prepare)
    prepare_cpu
    prepare_cuda
    ;;
  cpu) check_cpu ;;
  cuda) check_cuda ;;
  # Not `check_cpu && check_cuda`: a function in an && list runs without
  # errexit, and its failure would go unnoticed.
  all)
    check_cpu
    check_cuda
    ;;
  *) echo "usage: $0 [prepare|cpu|cuda|all]" >&2; exit 2 ;;
esac
echo "check-libtorch2: $stage done in $(( $(date +%s) - start )) s"
