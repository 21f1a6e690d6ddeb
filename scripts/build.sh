#!/usr/bin/env bash
# Configures and builds sinklab into build/ (or $BUILD_DIR). Extra arguments go to cmake's configure;
# TARGETS="a b" builds only those targets.
#   --target aarch64   cross-compiles for 64-bit ARM into build-arm64/ (docs/arm64.md; first run
#                      scripts/setup-arm64.sh): the library, the sinklab binary and the C++ test suites.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir="${BUILD_DIR:-build}"
cross=()
if [[ "${1:-}" == --target ]]; then
  case "${2:-}" in
    aarch64)
      build_dir="${BUILD_DIR:-build-arm64}"
      # No Python module (it would need an arm64 interpreter to load it), no benchmarks (qemu times
      # nothing), no MPI (Open MPI's arm64 build is not part of the cross set-up).
      cross=(--no-warn-unused-cli -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake -DSINKLAB_PYTHON=OFF -DSINKLAB_BUILD_BENCH=OFF
             -DSINKLAB_MPI=OFF)
      ;;
    x86_64 | native) ;;
    *) echo "build.sh: --target takes aarch64, x86_64 or native, not '${2:-}'" >&2; exit 2 ;;
  esac
  shift 2
fi
# ccache (scripts/setup.sh) keeps compiled objects across build folders and clones: paths are taken
# relative to the checkout, so a fresh clone of the same revision rebuilds from the cache.
launcher=()
if command -v ccache >/dev/null; then
  export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}" CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-1}"
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-Release}" "${launcher[@]}" "${cross[@]}" "$@" >/dev/null
# TARGETS="a b": only those targets (and what they need).
targets=()
for t in ${TARGETS:-}; do targets+=(--target "$t"); done
cmake --build "$build_dir" -j "$(nproc)" "${targets[@]}"
