#!/usr/bin/env bash
# Cross-compiles sinklab for 64-bit ARM and runs its tests under qemu-user on an x86-64 Debian 12 machine
# (docs/arm64.md), at both AArch64 ISA levels: on a NEON-only CPU model (QEMU_CPU=cortex-a53) and on
# one with SVE (QEMU_CPU=max: 512-bit vectors), where SINKLAB_MAX_ISA=neon also runs the NEON copies.
#
#   scripts/test-arm64.sh            every C++ suite of the Release build through ctest (not the Python,
#                                    MPI and README-command tests, which a cross build cannot run),
#                                    the paper regression and the command tests included; over an hour
#                                    per CPU model under emulation
#   scripts/test-arm64.sh --subset   the CI subset (.ci/run): the kernel suites (core, layers: every
#                                    kernel and normalizer, the golden files) at each level, the config and
#                                    file-reader suites, the pinned paper regression (four short trainings)
#
# The suites run under qemu-aarch64 named on the command line (ctest through CMAKE_CROSSCOMPILING_EMULATOR),
# so they need no help from the kernel. Some tests start an AArch64 binary as a child process (the command
# tests run build-arm64/sinklab, death tests re-run their own binary): the kernel then runs it through qemu
# by binfmt_misc. Debian's qemu-user-binfmt (setup-arm64.sh installs it) registers that under systemd; where
# nothing did (a container), this script registers its /usr/lib/binfmt.d/qemu-aarch64.conf itself when it
# may (root or sudo: it mounts binfmt_misc if it must). Whether children run is tried, not assumed (an
# entry can exist and be disabled, or name an interpreter this container lacks). Without it, --subset
# leaves out the death tests and the full run stops.
set -euo pipefail
cd "$(dirname "$0")/.."
subset=0
if [[ "${1:-}" == --subset ]]; then subset=1; shift; fi
(($# == 0)) || { echo "test-arm64.sh: unknown argument '$1' (only --subset)" >&2; exit 2; }
./scripts/setup-arm64.sh

qemu=$(command -v qemu-aarch64)

# Registers qemu-aarch64 with binfmt_misc if it is not; true when the AArch64 program $1 (run with the
# rest of the arguments) starts as a plain child process.
aarch64_children_run() {
  local entry=/proc/sys/fs/binfmt_misc/qemu-aarch64 conf=/usr/lib/binfmt.d/qemu-aarch64.conf sudo=""
  "$@" >/dev/null 2>&1 && return 0
  [[ -e $entry || ! -f $conf ]] && return 1
  [[ $(id -u) -ne 0 ]] && { sudo -n true 2>/dev/null || return 1; sudo="sudo -n"; }
  if [[ ! -e /proc/sys/fs/binfmt_misc/register ]]; then
    $sudo mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc 2>/dev/null || return 1
  fi
  $sudo sh -c "cat '$conf' > /proc/sys/fs/binfmt_misc/register" 2>/dev/null || return 1
  echo "test-arm64.sh: registered qemu-aarch64 with binfmt_misc ($conf)"
  "$@" >/dev/null 2>&1
}

build_dir="${BUILD_DIR:-build-arm64}"
export BUILD_DIR="$build_dir"
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-2}" OMP_WAIT_POLICY="${OMP_WAIT_POLICY:-passive}"
status=0
# After the build: can AArch64 children run (a test binary, started as the kernel would start a child)?
check_children() {
  children=1
  aarch64_children_run "$build_dir/tests/test_core" --gtest_list_tests && return 0
  children=0
  echo "test-arm64.sh: AArch64 binaries cannot run as child processes here (binfmt_misc has no working"
  echo "  qemu-aarch64 entry, and this script may not register one): $( ((subset)) &&
    echo "the death tests are left out" ||
    echo "the command tests need them; install qemu-user-binfmt (with systemd), run as root, or run --subset")"
  ((subset)) || exit 1
}
if ((subset)); then
  # Only what the subset runs: the libraries and five suites, no sinklab binary.
  TARGETS="test_core test_layers test_config_loading test_run_files test_train" ./scripts/build.sh --target aarch64
  check_children
  # Each suite runs as one process (ctest's one process per test costs a second each under qemu).
  gtest_filter='*'
  ((children)) || gtest_filter='-*DeathTest*'
  cache=$(mktemp -d)
  trap 'rm -rf "$cache"' EXIT
  # suite [gtest filter]: one run; prints its result and time, and its output if it failed.
  run_suite() {
    local suite=$1 filter=${2:-$gtest_filter} start=$SECONDS log="$cache/$QEMU_CPU-${SINKLAB_MAX_ISA:-}-$1.log"
    local name="$suite${SINKLAB_MAX_ISA:+ (SINKLAB_MAX_ISA=$SINKLAB_MAX_ISA)}"
    if (cd "$build_dir/tests" && SINKLAB_CACHE_DIR="$cache/tokens-$QEMU_CPU" "$qemu" "./$suite" --gtest_brief=1 \
          --gtest_filter="$filter" >"$log" 2>&1); then
      echo "   $name: $(grep -Eo '[0-9]+ tests? from [0-9]+ test suites? ran' "$log" | head -1), passed ($((SECONDS - start)) s)"
    else
      echo "   $name: FAILED ($((SECONDS - start)) s)"
      cat "$log"
      return 1
    fi
  }
  # Every kernel suite once per level: NEON's on the NEON-only CPU (with oneDNN's asimd kernels), SVE's on
  # max, and the NEON copies of the core kernels once more beside oneDNN's SVE kernels; the pinned paper runs
  # on the first two. The two CPU models run side by side, one thread each (qemu is slower than a core).
  pass() {
    local failed=0
    export QEMU_CPU=$1 OMP_NUM_THREADS=1
    echo "== arm64 CI subset on qemu's $QEMU_CPU"
    run_suite test_core || failed=1
    run_suite test_layers || failed=1
    run_suite test_train 'PaperRegression.*' || failed=1
    if [[ $QEMU_CPU == cortex-a53 ]]; then
      run_suite test_config_loading || failed=1
      run_suite test_run_files || failed=1
    else
      SINKLAB_MAX_ISA=neon run_suite test_core || failed=1
    fi
    return "$failed"
  }
  start=$SECONDS
  pass cortex-a53 >"$cache/pass-a53.out" 2>&1 &
  a53=$!
  pass max >"$cache/pass-max.out" 2>&1 &
  max=$!
  wait "$a53" || status=1
  wait "$max" || status=1
  cat "$cache/pass-a53.out" "$cache/pass-max.out"
  echo "== arm64 CI subset: $((SECONDS - start)) s, $( ((status)) && echo FAILED || echo passed)"
  exit "$status"
fi

./scripts/build.sh --target aarch64
check_children
# qemu reads the CPU model from QEMU_CPU, also for the children the command tests start.
for cpu in cortex-a53 max; do
  echo "== arm64 tests on qemu's $cpu"
  start=$SECONDS
  # On the NEON-only model the isa_neon.* copies of the suites would run the same path again.
  skip=(); [[ $cpu == cortex-a53 ]] && skip=(-LE '^isa$')
  # Not in a cross build: the MPI tests (no Open MPI for arm64 here; they fail by design without it) and the
  # README's commands (they run build/, the machine's own build).
  (cd "$build_dir" && QEMU_CPU=$cpu ctest --output-on-failure -j "$(nproc)" --timeout 3600 "${skip[@]}" \
    -E '(^|/)Mpi|^ReadmeCommands\.') || status=1
  echo "== $cpu: $((SECONDS - start)) s"
done
exit "$status"
