#!/usr/bin/env bash
# Installs what is needed, builds, runs every test with ctest, then every libFuzzer harness for a
# short fixed number of executions under ASan + UBSan (scripts/fuzz.sh, docs/reliability.md).
# SANITIZE=1 also builds and runs the suites under AddressSanitizer + UndefinedBehaviorSanitizer.
# ARM64=1 also cross-builds for 64-bit ARM and runs the arm64 subset under qemu (scripts/test-arm64.sh
# --subset, docs/arm64.md).
set -euo pipefail
cd "$(dirname "$0")/.."
# Each phase's wall time, printed after it and all together at the end (CI's budget is per submission).
phases=()
start=$SECONDS
phase_done() {
  phases+=("$1 $((SECONDS - start)) s")
  echo "test.sh: $1 took $((SECONDS - start)) s"
  start=$SECONDS
}
# Checked before anything runs: ctest takes "--timeout abc" silently, as no limit at all.
test_timeout="${TEST_TIMEOUT:-900}"
if ! [[ $test_timeout =~ ^[1-9][0-9]*$ ]]; then
  echo "test.sh: TEST_TIMEOUT must be a whole number of seconds above 0, not '$test_timeout'" >&2
  exit 2
fi
./scripts/setup.sh
phase_done setup
./scripts/build.sh
phase_done build
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-2}"
# ctest runs nproc test processes at once, each with OMP_NUM_THREADS threads: more threads than cores.
# A spinning OpenMP thread then burns the core its descheduled partner needs (a layer gradient check:
# 1.6 s instead of 0.2 s); sleeping at barriers is what tests want. Results do not depend on it.
export OMP_WAIT_POLICY="${OMP_WAIT_POLICY:-passive}"
# A test's time limit; TEST_TIMEOUT raises it where the machine is emulated (docs/arm64.md's arm64 root).
(cd build && ctest --output-on-failure -j "$(nproc)" --timeout "$test_timeout")
phase_done tests
if [[ "${SANITIZE:-0}" == 1 ]]; then
  # At -O0: GCC 12 at -O1 with the sanitizers reports -Wmaybe-uninitialized inside libstdc++'s <regex>.
  BUILD_DIR=build-sanitize BUILD_TYPE=Debug ./scripts/build.sh -DSINKLAB_SANITIZE=ON -DSINKLAB_BUILD_BENCH=OFF
  # At the machine's own ISA level only: the lower levels' runs are the Release pass's (label isa).
  (cd build-sanitize && ctest --output-on-failure -j "$(nproc)" --timeout 1800 -LE 'integration|isa')
  phase_done "sanitizer build and tests"
fi
./scripts/fuzz.sh "${FUZZ_RUNS:-10000}"
phase_done fuzzing
if [[ "${ARM64:-0}" == 1 ]]; then
  ./scripts/test-arm64.sh --subset
  phase_done "arm64 subset"
fi
echo "test.sh: passed; $(IFS=,; echo "${phases[*]}" | sed 's/,/, /g'); $SECONDS s in all"
