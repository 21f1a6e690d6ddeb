#!/usr/bin/env python3
"""Data-parallel training on this machine: one run's batch shards on 2 MPI ranks x 1 thread, against one
process with 2 threads and with 1 thread (docs/cluster.md, "One run over many ranks").

  python3 bench/data_parallel_scaling.py [--configs kjv_char,gpt2_small] [--rounds 3] [--shards 2]

Every variant trains the same config with the same train.batch_shards (so all three compute the same
weights), and its ms/step is (wall of a LONG-step run - wall of a SHORT-step run) / (LONG - SHORT):
start-up, the corpus and the final evaluation cancel. The variants alternate (A B C A B C) `--rounds`
times; printed: the median ms/step of each, the speed-up of each over one thread, and the step time
two ranks lose to their messages, (2 ranks) - (1 thread) / 2, which is what the simulation in
docs/cluster.md scales to more ranks.

Needs a Release build in build/ (with MPI), mpirun (scripts/setup.sh) and the corpus (scripts/get_corpus.sh).
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CONFIGS = {  # config file, steps of the short and the long run, more --set for runs that short
    "kjv_char": ("configs/normlimits/kjv_char.yaml", 3, 33, ["optimizer.warmup_steps=1"]),
    "gpt2_small": ("configs/bench/gpt2_small.yaml", 3, 13, []),
    "4x4_softmax": ("configs/paper/4x4_softmax.yaml", 50, 550, []),
}


def train_seconds(config, steps, shards, threads, ranks, work):
    path, _, _, extra = CONFIGS[config]
    args = [os.path.join(ROOT, "build", "sinklab"), "train", os.path.join(ROOT, path),
            "--set", f"train.max_steps={steps}", "--set", f"train.batch_shards={shards}",
            "--set", "train.eval_every=0", "--set", "train.log_every=100000", "--set", "train.stop_max_abs_error=0",
            "--set", "train.checkpoint_every=0", "--set", "train.checkpoint_seconds=0", "--set", "analysis.snapshot_every=0",
            "--threads", str(threads), "--out", os.path.join(work, f"{config}-{ranks}x{threads}-{steps}"), "--force", "--quiet"]
    for key in extra:
        args[3:3] = ["--set", key]
    if "corpus" in open(os.path.join(ROOT, path)).read():
        args[3:3] = ["--set", f"task.corpus={os.path.join(ROOT, 'data', 'corpora', 'kjv.txt')}"]
    if ranks > 1:
        args = ["mpirun", "--allow-run-as-root", "--oversubscribe", "--bind-to", "none", "-np", str(ranks)] + args + ["--mpi"]
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    started = time.perf_counter()
    result = subprocess.run(args, env=env, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"failed: {' '.join(args)}\n{result.stdout[-1500:]}{result.stderr[-1500:]}")
    return time.perf_counter() - started


def ms_per_step(config, shards, threads, ranks, work):
    _, short, long, _ = CONFIGS[config]
    a = train_seconds(config, short, shards, threads, ranks, work)
    b = train_seconds(config, long, shards, threads, ranks, work)
    return (b - a) * 1000 / (long - short)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--configs", default="kjv_char,gpt2_small")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--shards", type=int, default=2)
    args = parser.parse_args()
    if shutil.which("mpirun") is None:
        sys.exit("mpirun not found: run scripts/setup.sh")
    work = tempfile.mkdtemp(prefix="sinklab_data_parallel_")
    variants = [("1 x 1 thread", 1, 1), ("1 x 2 threads", 2, 1), ("2 ranks x 1 thread", 1, 2)]
    rows = []
    for config in [c for c in args.configs.split(",") if c]:
        if config not in CONFIGS:
            sys.exit(f"--configs: unknown config {config!r} (known: {', '.join(CONFIGS)})")
        times = {name: [] for name, _, _ in variants}
        for _ in range(args.rounds):  # A B C A B C: every variant sees the same machine load
            for name, threads, ranks in variants:
                times[name].append(ms_per_step(config, args.shards, threads, ranks, work))
                print(f"  {config} {name}: {times[name][-1]:.1f} ms/step", file=sys.stderr, flush=True)
        one, two, ranks = (statistics.median(times[name]) for name, _, _ in variants)
        rows.append(f"| {config} | {args.shards} | {one:.1f} | {two:.1f} | {ranks:.1f} | {one / two:.2f}x / {one / ranks:.2f}x | "
                    f"{ranks - one / 2:.1f} |")
    print("| config | shards | 1 process x 1 thread (ms/step) | 1 x 2 threads | 2 ranks x 1 thread | speed-up 2 threads / 2 ranks | "
          "message cost of 2 ranks (ms/step) |")
    print("|---|---|---|---|---|---|---|")
    print("\n".join(rows))
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
