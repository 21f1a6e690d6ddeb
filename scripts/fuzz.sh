#!/usr/bin/env bash
# Builds the libFuzzer harnesses (tests/fuzz/fuzz_*.cpp) with clang-14 + ASan + UBSan in build-fuzz/
# and runs each for RUNS executions (default 10000) from its seed corpus, after replaying the
# committed crash reproducers. Exits non-zero on any finding (crash, sanitizer report, raw exception,
# timeout, out-of-memory); the input that caused it is saved under build-fuzz/findings/<harness>/.
#   scripts/fuzz.sh [RUNS]           FUZZ_JOBS=N runs N harnesses at once (default: nproc)
# See docs/fuzzing.md.
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-10000}"
build_dir="${FUZZ_BUILD_DIR:-build-fuzz}"
jobs="${FUZZ_JOBS:-$(nproc)}"

# ccache as in scripts/build.sh: a clean clone of the same revision rebuilds the harnesses from the cache.
launcher=()
if command -v ccache >/dev/null; then
  export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}" CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-1}"
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
# -O1: sanitized Debug builds at -O0 fuzz several times slower; asserts (nlohmann's) stay on.
cmake -S . -B "$build_dir" "${launcher[@]}" -DCMAKE_CXX_COMPILER=clang++-14 -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-g -O1" \
  -DSINKLAB_FUZZ=ON -DSINKLAB_OPENMP=OFF -DSINKLAB_BUILD_TESTS=OFF -DSINKLAB_BUILD_BENCH=OFF >/dev/null
cmake --build "$build_dir" -j "$(nproc)" --target fuzz_all

# One harness: replay regressions, then fuzz. Generated inputs go to build-fuzz/corpus (not the repo).
fuzz_one() {
  local h=$1 bin="$build_dir/tests/fuzz/$1" log="$build_dir/logs/$1.log"
  local seeds="tests/fuzz/corpus/$h" work="$build_dir/corpus/$h" findings="$build_dir/findings/$h/"
  mkdir -p "$work" "$findings" "$(dirname "$log")"
  local opts=(-rss_limit_mb=2048 -malloc_limit_mb=512 -timeout=10 -print_final_stats=1 -artifact_prefix="$findings")
  local dict
  case $h in
    fuzz_config_loader) dict=config ;;
    fuzz_config_override) dict=config_override ;;
    fuzz_sweep_spec) dict=sweep_spec ;;
    fuzz_run_summary | fuzz_metrics | fuzz_sweep_manifest | fuzz_safetensors | fuzz_safetensors_reader | fuzz_hf_config | \
      fuzz_safetensors_index) dict=json ;;
    fuzz_tokenizer_json) dict=tokenizer_json ;;
    *) dict="" ;;
  esac
  [[ -n "$dict" ]] && opts+=(-dict="tests/fuzz/$dict.dict")
  local regressions=()
  [[ -d "tests/fuzz/regressions/$h" ]] && mapfile -t regressions < <(find "tests/fuzz/regressions/$h" -type f | sort)
  if ((${#regressions[@]})) && ! "$bin" "${opts[@]}" "${regressions[@]}" >"$log.regressions" 2>&1; then
    echo "fuzz: $h: a committed regression input fails again (see $log.regressions)"; return 1
  fi
  if ! "$bin" "${opts[@]}" -runs="$runs" "$work" "$seeds" >"$log" 2>&1; then
    echo "fuzz: $h: FINDING (see $log; input in $findings)"; return 1
  fi
  local execs cov
  execs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$log" | grep -o '[0-9]*$' || true)
  cov=$(grep -E '^#[0-9]+.*(DONE|INITED)' "$log" | tail -1 | grep -oE 'cov: [0-9]+ ft: [0-9]+' || true)
  echo "fuzz: $h: ok, ${execs:-?} executions, ${cov:-no coverage line}"
}
export -f fuzz_one
export build_dir runs

harnesses=$(cd tests/fuzz && ls fuzz_*.cpp | sed 's/\.cpp$//')
start=$SECONDS
if printf '%s\n' $harnesses | xargs -P "$jobs" -I{} bash -c 'fuzz_one {}'; then
  echo "fuzz: all harnesses clean ($runs runs each, $((SECONDS - start)) s)"
else
  echo "fuzz: findings above"; exit 1
fi
