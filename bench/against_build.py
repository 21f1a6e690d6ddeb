#!/usr/bin/env python3
"""One benchmark binary of two builds, alternated (old new, new old, ...), with medians and spreads.

"No benchmark regressed" needs the previous binary next to the new one in one run: these machines
drift between minutes and between days, so a number from an earlier session is no baseline.

  python3 bench/against_build.py --old OLD_BUILD [--new build] --bench lm_step_bench \
      [--filter 'lm_step/kjv_char|lm_step_t_sweep'] [--rounds 3]

OLD_BUILD is the build folder of another checkout (e.g. `git worktree add ../sinklab-old REV` and
`BUILD_DIR=../sinklab-old/build ./scripts/build.sh` there). Each binary runs from its own source tree
(read from the build's CMakeCache.txt), since some benchmarks open configs by relative paths. Per
benchmark: the median real time of each side over the rounds, their range, new / old, and a verdict:
"slower" or "faster" only where the two ranges do not overlap, otherwise "within the spread".

The rounds run old-new, then new-old, so that a machine drifting during the run favours neither side.
The verdict is not a significance test: with 3 rounds, two runs of one and the same binary part their
ranges often enough on microsecond benchmarks (see docs/performance.md, "Round three"). Calibrate
with an A/A run (`--old build`) and read a lone "slower" with 5 rounds before believing it. Byte-identical
binaries are named before the table: they are still timed, since each reads its own source tree's
configs, but without a config change their table is an A/A run.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def source_dir(build):
    cache = os.path.join(build, "CMakeCache.txt")
    try:
        with open(cache) as f:
            for line in f:
                if line.startswith("CMAKE_HOME_DIRECTORY:INTERNAL="):
                    return line.split("=", 1)[1].strip()
    except OSError as e:
        sys.exit(f"{cache}: {e.strerror}: is {build} a configured build folder?")
    sys.exit(f"{cache}: no CMAKE_HOME_DIRECTORY entry")


def revision(src):
    out = subprocess.run(["git", "-C", src, "rev-parse", "--short=7", "HEAD"], capture_output=True, text=True)
    return out.stdout.strip() or "unknown"


def busy_fraction(seconds=2.0):
    """The share of all CPUs' time spent outside idle over the next SECONDS (Linux's /proc/stat).

    Not the load average: its minute-long memory still counts a benchmark that has just ended, such as
    the previous invocation of this script.
    """
    def totals():
        with open("/proc/stat") as f:
            fields = [int(v) for v in f.readline().split()[1:9]]  # user .. steal; guest is inside user
        idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
        return sum(fields), idle

    try:
        total0, idle0 = totals()
        time.sleep(seconds)
        total1, idle1 = totals()
    except (OSError, ValueError, IndexError):
        return os.getloadavg()[0] / (os.cpu_count() or 1)
    elapsed = total1 - total0
    return 1.0 - (idle1 - idle0) / elapsed if elapsed > 0 else 0.0


def executable(build, bench):
    return os.path.join(build, "bench", bench)


def same_bytes(a, b):
    try:
        with open(a, "rb") as fa, open(b, "rb") as fb:
            return fa.read() == fb.read()
    except OSError:
        return False  # a missing binary is reported by run_once


def run_once(build, src, bench, pattern):
    """{benchmark name: (real time, unit)} of one run of BUILD/bench/BENCH from its source tree SRC."""
    exe = executable(build, bench)
    if not os.access(exe, os.X_OK):
        sys.exit(f"{exe}: not built (target {bench}; configure with SINKLAB_BUILD_BENCH=ON)")
    cmd = [exe, "--benchmark_format=json"] + ([f"--benchmark_filter={pattern}"] if pattern else [])
    out = subprocess.run(cmd, cwd=src, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed (exit {out.returncode}):\n{out.stderr.strip()}")
    try:
        report = json.loads(out.stdout)
    except json.JSONDecodeError as e:
        sys.exit(f"{' '.join(cmd)}: output is not Google Benchmark's JSON ({e})")
    times = {}
    for b in report.get("benchmarks", []):
        if b.get("run_type", "iteration") != "iteration":
            continue  # aggregates of --benchmark_repetitions: the rounds here are the repetitions
        if b.get("error_occurred"):
            sys.exit(f"{exe}: {b['name']}: {b.get('error_message', 'skipped')}")
        times[b["name"]] = (b["real_time"], b["time_unit"])
    if not times:
        sys.exit(f"{exe}: no benchmark matches --filter {pattern!r}")
    return times


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--old", required=True, help="the build folder to compare against")
    parser.add_argument("--new", default=os.path.join(ROOT, "build"), help="default: this checkout's build/")
    parser.add_argument("--bench", required=True, help="a binary in BUILD/bench/, e.g. lm_step_bench")
    parser.add_argument("--filter", default="", help="Google Benchmark's --benchmark_filter regex")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    if args.rounds < 1:
        sys.exit(f"--rounds {args.rounds}: needs at least 1")
    if not args.bench or os.sep in args.bench:
        sys.exit(f"--bench {args.bench!r}: the name of one binary in BUILD/bench/")

    sides = {"old": os.path.abspath(args.old), "new": os.path.abspath(args.new)}
    sources = {side: source_dir(build) for side, build in sides.items()}
    busy = busy_fraction()
    print(f"old {sides['old']} at {revision(sources['old'])}, "
          f"new {sides['new']} at {revision(sources['new'])}; CPUs busy before the first round: {busy:.0%}")
    if busy > 0.1:
        print("warning: the machine is busy; the ratios below are not a measurement of the builds alone")
    old_exe, new_exe = (executable(build, args.bench) for build in sides.values())
    if old_exe != new_exe and same_bytes(old_exe, new_exe):
        print(f"note: {args.bench} is byte-identical in the two builds: without a change in the configs it "
              "reads from its source tree, the table below is an A/A run and measures only the machine")
    samples = {"old": {}, "new": {}}
    for r in range(args.rounds):
        for side in ("old", "new") if r % 2 == 0 else ("new", "old"):
            for name, t in run_once(sides[side], sources[side], args.bench, args.filter).items():
                samples[side].setdefault(name, []).append(t)
            print(f"round {r + 1}/{args.rounds} {side} done", file=sys.stderr)

    print("| benchmark | old median (range) | new median (range) | new / old | verdict |")
    print("|---|---|---|---|---|")
    for name, old in samples["old"].items():
        new = samples["new"].get(name)
        if new is None:
            print(f"| {name} | {statistics.median(t for t, _ in old):.3f} | (not in the new build) | | |")
            continue
        unit = old[0][1]
        if new[0][1] != unit:
            sys.exit(f"{name}: unit {unit} in the old build, {new[0][1]} in the new")
        o = [t for t, _ in old]
        n = [t for t, _ in new]
        if len(o) < 2 or len(n) < 2:
            verdict = "one round: no spread to judge by"
        else:
            verdict = "slower" if min(n) > max(o) else "faster" if max(n) < min(o) else "within the spread"
        print(f"| {name} | {statistics.median(o):.3f} ({min(o):.3f}-{max(o):.3f}) {unit} | "
              f"{statistics.median(n):.3f} ({min(n):.3f}-{max(n):.3f}) {unit} | "
              f"{statistics.median(n) / statistics.median(o):.3f} | {verdict} |")
    for name in samples["new"]:
        if name not in samples["old"]:
            print(f"| {name} | (not in the old build) | {statistics.median(t for t, _ in samples['new'][name]):.3f} | | |")


if __name__ == "__main__":
    main()
