#!/usr/bin/env bash
# The main job: installs what is needed, builds, and reproduces the sink paper (configs/paper/
# reproduce.yaml: 6 models x 5 seeds) on all cores. Ends with the per-variant table and the path of
# the HTML report. Resumable: run it again to finish an interrupted reproduction.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
./scripts/build.sh
out="${OUT:-runs/paper-reproduction}"
exec ./build/sinklab compare configs/paper/reproduce.yaml --jobs "$(nproc)" --out "$out" "$@"
