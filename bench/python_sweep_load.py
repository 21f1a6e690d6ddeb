#!/usr/bin/python3
"""How long `sinklab.Sweep` takes to load a sweep's table (python/sinklab/sweeps.py), and each run's metrics.

  PYTHONPATH=build/python /usr/bin/python3 bench/python_sweep_load.py [SWEEP_DIR] [--rounds 5]

SWEEP_DIR defaults to /tmp/repro (a sweep `sinklab compare` wrote, e.g. configs/sweeps/paper_reproduction.yaml's
30 runs). Without it the script makes a 30-run sweep: one `build/sinklab train` of
configs/examples/tiny_block.yaml (200 steps) copied into 30 run folders, and a sweep.json listing them.

Printed, per table mode (pandas DataFrame, and dicts of arrays with SINKLAB_NO_PANDAS=1): the import time
of the package and of pandas, then over --rounds fresh Sweep objects the median and fastest time of
Sweep(path).table (sweep.json and every summary.json; the target is under 1 s for 30 runs) and of reading
every run's metrics.jsonl after it. Each mode runs in its own interpreter so that imports are cold.
"""
import argparse
import json
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import tempfile

SOURCE_DIR = pathlib.Path(__file__).resolve().parents[1]

# Run in a child interpreter: import, then time the table and the metrics of fresh Sweep objects.
MEASURE = r"""
import json, sys, time
t0 = time.perf_counter()
import sinklab.sweeps
t1 = time.perf_counter()
from sinklab import tables
pandas_seconds = 0.0
if tables.pandas_enabled():
    import pandas
    pandas_seconds = time.perf_counter() - t1
table, metrics = [], []
for _ in range(int(sys.argv[2])):
    start = time.perf_counter()
    sweep = sinklab.sweeps.Sweep(sys.argv[1])
    sweep.table
    middle = time.perf_counter()
    for run in sweep:
        if run.finished:
            run.metrics
    table.append(middle - start)
    metrics.append(time.perf_counter() - middle)
print(json.dumps({"runs": len(sweep), "import": t1 - t0, "pandas_import": pandas_seconds, "table": table,
                  "metrics": metrics, "lines": sum(len(r.metrics["step"]) for r in sweep if r.finished)}))
"""


def make_sweep(folder, runs=30):
    """A sweep folder of `runs` copies of one tiny training run."""
    template = folder / "template"
    subprocess.run([str(SOURCE_DIR / "build/sinklab"), "train", str(SOURCE_DIR / "configs/examples/tiny_block.yaml"),
                    "--out", str(template), "--quiet", "--threads", "1", "--set", "train.max_steps=200",
                    "--set", "train.stop_max_abs_error=0"], check=True,
                   stdout=subprocess.DEVNULL)
    entries = []
    for i in range(runs):
        run_id = f"tiny_seed={i}"
        shutil.copytree(template, folder / "runs" / run_id)
        entries.append({"id": run_id, "variant": "tiny", "seed": i, "dir": f"runs/{run_id}",
                        "overrides": {"seed": i}, "config": str(SOURCE_DIR / "configs/examples/tiny_block.yaml")})
    (folder / "sweep.json").write_text(json.dumps({"name": "bench", "runs": entries}, indent=2))
    return folder


def measure(sweep_dir, rounds, no_pandas):
    env = dict(os.environ, SINKLAB_NO_PANDAS="1" if no_pandas else "")
    done = subprocess.run([sys.executable, "-c", MEASURE, str(sweep_dir), str(rounds)], env=env, check=True,
                          capture_output=True, text=True)
    return json.loads(done.stdout)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sweep", nargs="?", default="/tmp/repro")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        sweep_dir = pathlib.Path(args.sweep)
        if not (sweep_dir / "sweep.json").exists():
            print(f"{sweep_dir} holds no sweep: making a 30-run one in {scratch}")
            sweep_dir = make_sweep(pathlib.Path(scratch))
        for no_pandas in (False, True):
            r = measure(sweep_dir, args.rounds, no_pandas)
            mode = "dicts of arrays" if no_pandas else "pandas"
            print(f"{mode}: {r['runs']} runs in {sweep_dir}; import sinklab {r['import']:.3f} s, pandas "
                  f"{r['pandas_import']:.3f} s")
            print(f"  Sweep(path).table: median {statistics.median(r['table']):.4f} s, fastest {min(r['table']):.4f} s "
                  f"({args.rounds} rounds)")
            print(f"  every run's metrics ({r['lines']} lines): median {statistics.median(r['metrics']):.4f} s, "
                  f"fastest {min(r['metrics']):.4f} s")


if __name__ == "__main__":
    main()
