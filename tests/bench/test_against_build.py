"""bench/against_build.py against two fake builds whose benchmark binaries print fixed times."""
import os
import pathlib
import stat
import subprocess
import sys

SCRIPT = pathlib.Path(__file__).resolve().parents[2] / "bench" / "against_build.py"


def fake_build(root, name, times_us, exit_code=0):
    """ROOT/NAME: a configured build whose bench/fake_bench prints one Google Benchmark JSON report
    per run, taking its real time from TIMES_US in turn (a counter file keeps the position)."""
    src = root / f"{name}-src"
    build = src / "build"
    (build / "bench").mkdir(parents=True)
    (build / "CMakeCache.txt").write_text(f"CMAKE_HOME_DIRECTORY:INTERNAL={src}\n")
    exe = build / "bench" / "fake_bench"
    counter = root / f"{name}.count"
    exe.write_text(f"""#!{sys.executable}
import json, pathlib, sys
times = {times_us!r}
counter = pathlib.Path({str(counter)!r})
runs = int(counter.read_text()) if counter.exists() else 0
counter.write_text(str(runs + 1))
if {exit_code}:
    sys.stderr.write("fake_bench: broken\\n")
    sys.exit({exit_code})
t = times[runs % len(times)]
print(json.dumps({{"benchmarks": [{{"name": "step/1", "run_type": "iteration", "real_time": t,
                                  "time_unit": "us"}}]}}))
""")
    exe.chmod(exe.stat().st_mode | stat.S_IXUSR)
    return build


def compare(old, new, rounds=3):
    return subprocess.run([sys.executable, str(SCRIPT), "--old", str(old), "--new", str(new),
                           "--bench", "fake_bench", "--rounds", str(rounds)], capture_output=True, text=True)


def row(stdout):
    return next(line for line in stdout.splitlines() if line.startswith("| step/1 "))


def test_ranges_that_part_are_slower_and_overlapping_ones_within_the_spread(tmp_path):
    old = fake_build(tmp_path, "old", [100.0, 102.0, 101.0])
    new = fake_build(tmp_path, "new", [120.0, 121.0, 119.0])
    done = compare(old, new)
    assert done.returncode == 0, done.stderr
    assert "| 101.000 (100.000-102.000) us | 120.000 (119.000-121.000) us | 1.188 | slower |" in row(done.stdout)

    old = fake_build(tmp_path / "b", "old", [100.0, 130.0, 101.0])
    new = fake_build(tmp_path / "b", "new", [120.0, 121.0, 119.0])
    done = compare(old, new)
    assert row(done.stdout).endswith("| within the spread |")


def test_the_sides_swap_order_every_round(tmp_path):
    done = compare(fake_build(tmp_path, "old", [1.0]), fake_build(tmp_path, "new", [2.0]), rounds=4)
    order = [line.split()[-2] for line in done.stderr.splitlines() if line.startswith("round ")]
    assert order == ["old", "new", "new", "old", "old", "new", "new", "old"]
    assert row(done.stdout).endswith("| slower |")


def test_one_round_gives_no_verdict(tmp_path):
    done = compare(fake_build(tmp_path, "old", [1.0]), fake_build(tmp_path, "new", [2.0]), rounds=1)
    assert row(done.stdout).endswith("| one round: no spread to judge by |")


def test_byte_identical_binaries_are_named_and_still_timed(tmp_path):
    old = fake_build(tmp_path, "old", [1.0])
    new = fake_build(tmp_path, "new", [1.0])
    assert "byte-identical" not in compare(old, new).stdout  # the counter paths differ
    # The counter path is written into each script: give both the same one so the bytes agree.
    (new / "bench" / "fake_bench").write_bytes((old / "bench" / "fake_bench").read_bytes())
    done = compare(old, new)
    assert done.returncode == 0, done.stderr
    assert "byte-identical in the two builds" in done.stdout and "A/A run" in done.stdout
    assert row(done.stdout).endswith("| within the spread |")


def test_a_failing_benchmark_ends_the_comparison_with_its_message(tmp_path):
    done = compare(fake_build(tmp_path, "old", [1.0], exit_code=3), fake_build(tmp_path, "new", [1.0]))
    assert done.returncode != 0
    assert "failed (exit 3)" in done.stderr and "fake_bench: broken" in done.stderr
    assert "| step/1 " not in done.stdout


def test_a_folder_that_is_no_build_is_named(tmp_path):
    done = compare(tmp_path / "nowhere", fake_build(tmp_path, "new", [1.0]))
    assert done.returncode != 0
    assert "nowhere" in done.stderr and "configured build folder" in done.stderr
