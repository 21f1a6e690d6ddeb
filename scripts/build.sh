#!/usr/bin/env bash
# Configures and builds sinklab into build/ (or $BUILD_DIR). Extra arguments go to cmake's configure.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir="${BUILD_DIR:-build}"
# ccache (scripts/setup.sh) keeps compiled objects across build folders and clones: paths are taken
# relative to the checkout, so a fresh clone of the same revision rebuilds from the cache.
launcher=()
if command -v ccache >/dev/null; then
  export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}" CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-1}"
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-Release}" "${launcher[@]}" "$@" >/dev/null
cmake --build "$build_dir" -j "$(nproc)"
