# shellcheck shell=bash
# Which build tool CMake generates for, for the scripts that configure a
# build directory (build.sh, gpu-check.sh, check-gpu-bundle.sh). Sourced,
# not run.
#
# Ninja where it is installed: CMake's Makefiles compile no file of a
# library before every library it links against is complete, so a clean
# build waits at each layer of lib/ (util, spec, config, models, runs,
# watch, train, ...) for the slowest file of the layer below, while Ninja
# starts every file once the shared torch header is precompiled. Replayed
# from one clean build's step times (scripts/bench/build_makespan.py), the
# build of trainer takes about 2.9 times as long in the Makefiles' order on
# 16 cores (the GPU machine) and 1.06 times on 2 (docs/development.md).

# cmake_generator_args BUILD_DIR [NINJA]: prints `-G Ninja` (and the program
# when NINJA names one off the PATH), one word a line, for a directory not
# configured yet; nothing where CMAKE_GENERATOR chooses, where BUILD_DIR
# was configured before (CMake keeps a directory's first generator and
# refuses another), or where no Ninja is at hand (Makefiles, CMake's default).
cmake_generator_args() {
  local dir=$1 ninja=${2:-}
  [ -z "${CMAKE_GENERATOR:-}" ] || return 0
  [ ! -f "$dir/CMakeCache.txt" ] || return 0
  if command -v ninja >/dev/null 2>&1; then
    printf '%s\n' -G Ninja
  elif [ -n "$ninja" ] && [ -x "$ninja" ]; then
    printf '%s\n' -G Ninja "-DCMAKE_MAKE_PROGRAM=$ninja"
  fi
}
