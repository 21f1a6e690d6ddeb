#!/usr/bin/env bash
# The main job: installs what is needed, builds, and reproduces the sink paper (configs/paper/
# reproduce.yaml: 6 models x 5 seeds) on all cores. Ends with the per-variant table, the path of the
# HTML report and, last, the URL of the sink explorer page. Resumable: run it again to finish an
# interrupted reproduction.
#   --short   the 1x1 and 2x2 models only (configs/paper/reproduce_short.yaml), into
#             runs/paper-reproduction-short: for small or emulated machines (docs/arm64.md).
# Other arguments go to `sinklab compare`.
set -euo pipefail
cd "$(dirname "$0")/.."
sweep=configs/paper/reproduce.yaml
default_out=runs/paper-reproduction
if [[ "${1:-}" == --short ]]; then
  sweep=configs/paper/reproduce_short.yaml
  default_out=runs/paper-reproduction-short
  shift
fi
./scripts/setup.sh
./scripts/build.sh
# The README's table was measured on this kernel path; results are bit-identical only on the same one.
readme_path="avx512+onednn:avx512_core_bf16"
path=$(./build/sinklab --version | sed -n 's/^kernel path: \([^ ]*\).*/\1/p')
if [[ "$path" != "$readme_path" ]]; then
  echo "note: this machine runs kernel path $path; the README's table is from $readme_path." >&2
  echo "      Step counts and the last digits may differ; the sink pattern (softmax heads on BOS, relu heads" >&2
  echo "      without mass on non-trigger rows) is what holds on every path (docs/reproducibility.md)." >&2
fi
out="${OUT:-$default_out}"
status=0
./build/sinklab compare "$sweep" --jobs "$(nproc)" --out "$out" "$@" || status=$?
# The last line: the reproduction's sink explorer (written with the report), as a URL to open in a browser.
explorer="$out/report/explorer.html"
if [[ -f "$explorer" ]]; then
  echo "sink explorer: file://$(realpath "$explorer")"
fi
exit "$status"
