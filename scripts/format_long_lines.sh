#!/usr/bin/env bash
# Reformats, with the project's .clang-format, only the statements that run past 120 columns in the
# given C++ files (default: every tracked .cpp/.h). The rest of each file keeps its hand layout.
# --check lists the long lines instead and exits 1 when there are any.
set -euo pipefail
cd "$(dirname "$0")/.."
check=0
if [[ "${1:-}" == "--check" ]]; then check=1; shift; fi
files=("$@")
if [[ ${#files[@]} -eq 0 ]]; then mapfile -t files < <(git ls-files '*.cpp' '*.h'); fi
found=0
for f in "${files[@]}"; do
  # Characters, not bytes (a dash in a table is three bytes); a raw string literal cannot be broken.
  mapfile -t long < <(LC_ALL=C.UTF-8 awk 'length > 120 && !/R"\(/ { print FNR }' "$f")
  [[ ${#long[@]} -eq 0 ]] && continue
  found=1
  if [[ $check -eq 1 ]]; then
    for n in "${long[@]}"; do echo "$f:$n: longer than 120 characters"; done
    continue
  fi
  args=()
  for n in "${long[@]}"; do args+=("--lines=$n:$n"); done
  clang-format -i --style=file "${args[@]}" "$f"
done
if [[ $check -eq 1 && $found -eq 1 ]]; then exit 1; fi
exit 0
