#!/usr/bin/env python3
"""nanoGPT's CPU recipe on KJV characters: sinklab against its PyTorch twin, the whole 2000 iterations.

  python3 bench/nanogpt_recipe.py [--threads 1,2] [--rounds 1] [--steps 2000]

Per thread count and round, alternately: `build/sinklab train configs/bench/nanogpt_cpu.yaml` (into a
fresh temporary folder) and `tools/torch_twin.py --config nanogpt_cpu --train-steps N` (the same model,
data and optimizer by hand, docs/golden.md). Printed per row: the wall time of each whole command
(start-up, corpus, training, the final evaluation), the twin's training-only time, their ratio, and
both validation losses in nats per character: sinklab's eval_loss (summary.json) and the twin's, each
over 240 windows of 64 drawn from the validation part (nanoGPT's 20 evaluation batches of 12), by
their own generators, so the two losses differ by sampling as well as by training.

Needs python3-torch (scripts/setup.sh with SINKLAB_WITH_TORCH=1), data/corpora/kjv.txt
(scripts/get_corpus.sh) and a Release build of sinklab in build/.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CONFIG = os.path.join(ROOT, "configs", "bench", "nanogpt_cpu.yaml")
CORPUS = os.path.join(ROOT, "data", "corpora", "kjv.txt")
SINKLAB = os.path.join(ROOT, "build", "sinklab")
TWIN = os.path.join(ROOT, "tools", "torch_twin.py")


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--threads", default="1,2", help="comma-separated thread counts (default 1,2)")
    parser.add_argument("--rounds", type=int, default=1, help="alternated rounds per thread count (default 1)")
    parser.add_argument("--steps", type=int, default=2000, help="training iterations (default 2000, the recipe's)")
    args = parser.parse_args()
    try:
        args.threads = [int(t) for t in args.threads.split(",")]
    except ValueError:
        parser.error(f"--threads {args.threads}: not a comma-separated list of integers")
    if any(t < 1 for t in args.threads) or args.rounds < 1 or args.steps < 1:
        parser.error("--threads, --rounds and --steps must be >= 1")
    for path, how in ((SINKLAB, "build it: cmake --build build --target sinklab"),
                      (CORPUS, "scripts/get_corpus.sh writes it")):
        if not os.path.exists(path):
            sys.exit(f"{path}: missing ({how})")
    return args


def run_checked(cmd, env=None):
    start = time.perf_counter()
    result = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT)
    wall = time.perf_counter() - start
    if result.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed (exit {result.returncode}):\n{result.stderr[-3000:]}")
    return wall, result.stdout


def sinklab_round(threads, steps, work):
    out = os.path.join(work, f"sinklab_{threads}")
    shutil.rmtree(out, ignore_errors=True)
    wall, _ = run_checked([SINKLAB, "train", CONFIG, "--threads", str(threads), "--set", f"train.max_steps={steps}",
                           "--set", f"task.corpus={CORPUS}", "--out", out, "--quiet"])
    with open(os.path.join(out, "summary.json")) as f:
        summary = json.load(f)
    if summary.get("steps") != steps:
        sys.exit(f"sinklab stopped after {summary.get('steps')} steps, not {steps} ({summary.get('stop_reason')})")
    return wall, summary["eval_loss"], summary["train_loss"]


def twin_round(threads, steps):
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), OPENBLAS_NUM_THREADS=str(threads))
    wall, stdout = run_checked(["/usr/bin/python3", TWIN, "--config", "nanogpt_cpu", "--threads", str(threads),
                                "--train-steps", str(steps), "--corpus", CORPUS], env=env)
    report = json.loads(stdout.strip().splitlines()[-1])
    return wall, report["wall_seconds"], report["val_loss"], report["train_loss_last_50"]


def main():
    args = parse_args()
    work = tempfile.mkdtemp(prefix="sinklab_nanogpt_")
    rows = []
    try:
        for threads in args.threads:
            s_wall, t_wall, t_train, s_val, t_val, s_loss, t_loss = [], [], [], [], [], [], []
            for _ in range(args.rounds):
                wall, val, loss = sinklab_round(threads, args.steps, work)
                s_wall.append(wall), s_val.append(val), s_loss.append(loss)
                wall, train, val, loss = twin_round(threads, args.steps)
                t_wall.append(wall), t_train.append(train), t_val.append(val), t_loss.append(loss)
            row = dict(threads=threads, sinklab_s=statistics.median(s_wall), twin_s=statistics.median(t_wall),
                       twin_train_s=statistics.median(t_train), sinklab_val=statistics.median(s_val),
                       twin_val=statistics.median(t_val), sinklab_train_loss=statistics.median(s_loss),
                       twin_train_loss=statistics.median(t_loss))
            rows.append(row)
            print(f"threads {threads}: sinklab {row['sinklab_s']:.1f} s, twin {row['twin_s']:.1f} s "
                  f"(training {row['twin_train_s']:.1f} s), ratio {row['twin_s'] / row['sinklab_s']:.2f}x, "
                  f"val loss {row['sinklab_val']:.4f} / {row['twin_val']:.4f}  rounds {[round(w, 1) for w in s_wall]} / "
                  f"{[round(w, 1) for w in t_wall]} s", flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"\n| threads | sinklab s ({args.steps} steps, whole command) | PyTorch twin s (whole; training only) | twin / sinklab "
          "| val loss sinklab / twin (nats/char) | train loss sinklab / twin (last step / last 50) |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['threads']} | {r['sinklab_s']:.1f} | {r['twin_s']:.1f}; {r['twin_train_s']:.1f} | "
              f"{r['twin_s'] / r['sinklab_s']:.2f}x | {r['sinklab_val']:.4f} / {r['twin_val']:.4f} | "
              f"{r['sinklab_train_loss']:.4f} / {r['twin_train_loss']:.4f} |")


if __name__ == "__main__":
    main()
