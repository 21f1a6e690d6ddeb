#!/usr/bin/python3
"""What attention snapshots (analysis.snapshot_every, docs/analysis.md) cost a training run.

  /usr/bin/python3 bench/snapshot_cost.py [CONFIG ...] [--rounds 3] [--threads 1] [--set KEY=VALUE ...]

Each config is trained with the default snapshot keys (A) and with analysis.snapshot_every=0 (B),
alternately A B A B ... for --rounds rounds, by build/sinklab in fresh temporary run folders. Printed per
config: the median wall time of each, the median of the per-round ratios A / B (the measured cost), the
run's steps, how many snapshots the file kept and its size. Both runs must stop at the same step
(snapshots never touch the weights); the script fails otherwise.

A few percent of a run is within these machines' noise (docs/measuring.md), so the script also
estimates the cost from one snapshot's price: --probe-steps steps with a snapshot at every step
(snapshot_every 1, snapshot_limit 0) against none, alternately, give seconds per snapshot; times the
snapshots the schedule takes over the run (the thinned ones included), over the run's time without.
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


def snapshots_taken(every, limit, steps):
    """How many snapshots the schedule takes in a run of `steps` steps (stats/attention_snapshots.h:
    multiples of an interval that doubles when `limit` are kept), the final one included."""
    taken, kept, interval = 0, 0, every
    for step in range(0, steps, every):
        if step % interval:
            continue
        taken, kept = taken + 1, kept + 1
        if limit and kept >= limit:
            interval *= 2
            kept = sum(1 for s in range(0, step + 1, interval))
    return taken + 1


def probe_seconds_per_snapshot(config, tmp, threads, sets, steps, rounds):
    deltas = []
    probe = sets + [f"train.max_steps={steps}", "train.stop_max_abs_error=0"]
    for r in range(rounds):
        a, _ = train(config, tmp / f"probe_every{r}", threads, probe + ["analysis.snapshot_every=1", "analysis.snapshot_limit=0"])
        b, _ = train(config, tmp / f"probe_none{r}", threads, probe + ["analysis.snapshot_every=0"])
        deltas.append(a - b)
    return statistics.median(deltas) / steps


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("configs", nargs="*", type=pathlib.Path)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--set", dest="sets", action="append", default=[], help="applied to both runs")
    parser.add_argument("--probe-steps", type=int, default=300, help="steps of the per-snapshot probe")
    args = parser.parse_args()
    configs = args.configs or sorted((SOURCE_DIR / "configs" / "paper").glob("*.yaml"))
    if not BINARY.exists():
        sys.exit(f"snapshot_cost: {BINARY} is missing; build first (scripts/build.sh)")
    os.environ.setdefault("OMP_WAIT_POLICY", "passive")
    print(f"{'config':<24} {'with (s)':>9} {'without (s)':>11} {'cost':>7} {'steps':>6} {'snapshots':>9} {'file':>9} "
          f"{'ms/snapshot':>11} {'taken':>6} {'estimated':>9}")
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
            per_snapshot = probe_seconds_per_snapshot(config, pathlib.Path(tmp), args.threads, args.sets,
                                                      args.probe_steps, args.rounds)
            resolved = (pathlib.Path(tmp) / "with0" / "config.yaml").read_text()
            every = int(resolved.split("snapshot_every: ")[1].split()[0])
            limit = int(resolved.split("snapshot_limit: ")[1].split()[0])
            taken = snapshots_taken(every, limit, steps_a)
        print(f"{config.stem:<24} {statistics.median(with_s):>9.2f} {statistics.median(without_s):>11.2f} "
              f"{(statistics.median(ratios) - 1) * 100:>6.1f}% {steps_a:>6} {kept:>9} {size / 1e6:>7.2f}MB "
              f"{per_snapshot * 1e3:>11.2f} {taken:>6} {taken * per_snapshot / statistics.median(without_s) * 100:>8.1f}%")


if __name__ == "__main__":
    main()
