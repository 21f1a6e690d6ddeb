#!/usr/bin/python3
"""What attention snapshots (analysis.snapshot_every, docs/analysis.md) cost a training run.

  /usr/bin/python3 bench/snapshot_cost.py [CONFIG ...] [--rounds 3] [--threads 1] [--set KEY=VALUE ...]

Each config is trained with the default snapshot keys (A) and with analysis.snapshot_every=0 (B),
alternately A B A B ... for --rounds rounds, by build/sinklab in fresh temporary run folders. Printed per
config: the median wall time of each, the median of the per-round ratios A / B (the cost; on these noisy
machines a single round means little), the run's steps, how many snapshots the file kept and its size.
Both runs must stop at the same step (snapshots never touch the weights); the script fails otherwise.
Defaults: the paper's six configs (configs/paper/*.yaml).
"""
import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile

SOURCE_DIR = pathlib.Path(__file__).resolve().parents[1]
BINARY = SOURCE_DIR / "build" / "sinklab"


def train(config, out, threads, sets):
    command = [str(BINARY), "train", str(config), "--out", str(out), "--threads", str(threads), "--quiet"]
    for s in sets:
        command += ["--set", s]
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    seconds = time.perf_counter() - start
    with open(out / "summary.json") as f:
        steps = json.load(f)["steps"]
    return seconds, steps


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("configs", nargs="*", type=pathlib.Path)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--set", dest="sets", action="append", default=[], help="applied to both runs")
    args = parser.parse_args()
    configs = args.configs or sorted((SOURCE_DIR / "configs" / "paper").glob("*.yaml"))
    if not BINARY.exists():
        sys.exit(f"snapshot_cost: {BINARY} is missing; build first (scripts/build.sh)")
    os.environ.setdefault("OMP_WAIT_POLICY", "passive")
    print(f"{'config':<24} {'with (s)':>9} {'without (s)':>11} {'cost':>7} {'steps':>6} {'snapshots':>9} {'file':>9}")
    for config in configs:
        with_s, without_s, ratios = [], [], []
        with tempfile.TemporaryDirectory() as tmp:
            for r in range(args.rounds):
                a, steps_a = train(config, pathlib.Path(tmp) / f"with{r}", args.threads, args.sets)
                b, steps_b = train(config, pathlib.Path(tmp) / f"without{r}", args.threads,
                                   args.sets + ["analysis.snapshot_every=0"])
                if steps_a != steps_b:
                    sys.exit(f"snapshot_cost: {config}: {steps_a} steps with snapshots, {steps_b} without")
                with_s.append(a)
                without_s.append(b)
                ratios.append(a / b)
            snapshots = pathlib.Path(tmp) / "with0" / "attention_snapshots.npz"
            with zipfile.ZipFile(snapshots) as z, z.open("steps.npy") as f:
                header = f.read(128).decode("latin1")
            kept = header.split("'shape': (")[1].split(",")[0]
            size = snapshots.stat().st_size
        print(f"{config.stem:<24} {statistics.median(with_s):>9.2f} {statistics.median(without_s):>11.2f} "
              f"{(statistics.median(ratios) - 1) * 100:>6.1f}% {steps_a:>6} {kept:>9} {size / 1e6:>7.2f}MB")


if __name__ == "__main__":
    main()
