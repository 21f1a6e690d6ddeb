#!/usr/bin/env bash
# Starts Debian's Python 3 with the sinklab package of build/ importable (docs/python.md):
#   scripts/python.sh                      an interactive interpreter
#   scripts/python.sh my_analysis.py       a script
#   scripts/python.sh -m jupyter notebook  Jupyter (or: -m jupyter nbconvert --execute ...)
# It is /usr/bin/python3 on purpose: scripts/setup.sh installs NumPy, pandas and Jupyter for that one,
# and a python3 found first on PATH (pyenv, a virtualenv) may have none of them.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${BUILD_DIR:-$root/build}"
if [[ ! -d "$build/python/sinklab" ]]; then
  echo "scripts/python.sh: $build/python/sinklab is missing: build first with ./scripts/build.sh" >&2
  exit 2
fi
export PYTHONPATH="$build/python${PYTHONPATH:+:$PYTHONPATH}"
exec /usr/bin/python3 "$@"
