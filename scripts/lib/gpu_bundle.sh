# Unpacking the dependency bundle of scripts/gpu-bundle.sh into a private
# prefix, and the CMake arguments that build against it. Sourced by
# scripts/gpu-check.sh (on the GPU machine) and scripts/check-gpu-bundle.sh
# (its CPU half, here). Sourced, not run.

# unpack_bundle BUNDLE PREFIX: a fresh PREFIX holding every package of BUNDLE,
# laid out as Debian 12 has it (/lib merged into /usr/lib), with no link that
# points outside PREFIX. dpkg -x writes files only; nothing is configured.
unpack_bundle() {
  local bundle=$1 prefix=$2
  if ! compgen -G "$bundle/*.deb" >/dev/null; then
    echo "no packages in $bundle: make the bundle with scripts/gpu-bundle.sh on a Debian 12 machine" >&2
    return 2
  fi
  rm -rf "$prefix"
  mkdir -p "$prefix"
  local deb
  for deb in "$bundle"/*.deb; do dpkg-deb -x "$deb" "$prefix"; done
  # zlib1g and a few others install into /lib; their -dev links name /lib.
  if [ -d "$prefix/lib" ] && [ ! -L "$prefix/lib" ]; then
    mkdir -p "$prefix/usr/lib"
    cp -a "$prefix/lib/." "$prefix/usr/lib/"
    rm -rf "$prefix/lib"
    ln -s usr/lib "$prefix/lib"
  fi
  # An absolute link (libz.so -> /lib/...) would reach the machine's own copy.
  local link target
  while IFS= read -r link; do
    target=$(readlink "$link")
    ln -sfn "$prefix$target" "$link"
  done < <(find "$prefix" -type l -lname '/*')
  # protoc runs at build time and needs the bundle's libprotoc, which the
  # machine may not have: a wrapper names the bundle's library folder.
  if [ -x "$prefix/usr/bin/protoc" ] && [ ! -L "$prefix/usr/bin/protoc" ]; then
    mv "$prefix/usr/bin/protoc" "$prefix/usr/bin/protoc.real"
    # shellcheck disable=SC2016  # the wrapper expands LD_LIBRARY_PATH when it runs
    printf '#!/bin/sh\nLD_LIBRARY_PATH="%s${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" exec "%s" "$@"\n' \
      "$(bundle_lib_dir "$prefix")" "$prefix/usr/bin/protoc.real" >"$prefix/usr/bin/protoc"
    chmod +x "$prefix/usr/bin/protoc"
  fi
  # libgloo-dev comes without libgloo0 (the PyTorch has Gloo built in): drop
  # its dangling link so nothing can link against a library that is not there.
  find "$prefix" -xtype l -delete
}

# unpack_data ARCHIVE DIR: a fresh DIR holding the data sets of
# scripts/gpu-data.sh's ARCHIVE (reuters21578/, fashion-mnist/,
# deblur-photos/, those that were packed), for TRAINER_DATA_DIR.
unpack_data() {
  local archive=$1 dir=$2
  rm -rf "$dir"
  mkdir -p "$dir"
  if ! tar -C "$dir" -xJf "$archive"; then
    echo "$archive could not be unpacked: make it again with scripts/gpu-data.sh" >&2
    return 2
  fi
}

# bundle_lib_dir PREFIX: where the bundle's shared libraries are.
bundle_lib_dir() { echo "$1/usr/lib/x86_64-linux-gnu"; }

# bundle_cmake_args PREFIX: one argument a line. The prefix comes first in
# CMAKE_PREFIX_PATH, so its packages win over any the machine has. The
# binaries carry an RPATH (not RUNPATH: --disable-new-dtags) to its libraries,
# because RPATH also serves the libraries' own dependencies (libcurl's TLS and
# Kerberos libraries), so they run without LD_LIBRARY_PATH.
bundle_cmake_args() {
  local prefix=$1 lib
  lib=$(bundle_lib_dir "$prefix")
  local flags="-Wl,--disable-new-dtags -Wl,-rpath,$lib -Wl,-rpath-link,$lib"
  echo "-DCMAKE_EXE_LINKER_FLAGS=$flags"
  echo "-DCMAKE_SHARED_LINKER_FLAGS=$flags"
}
