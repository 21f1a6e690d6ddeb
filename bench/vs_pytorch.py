#!/usr/bin/env python3
"""sinklab versus its PyTorch twin (tools/torch_twin.py), side by side in one run.

For every config and thread count the two programs are run alternately `--rounds` times; each round
times full training steps after a warm-up (sinklab: build/bench/train_step_bench; PyTorch: the twin).
Peak resident memory: of the twin's timing process, and of a short `sinklab train` run of the same
config. Printed: median ms/step of each, the ratio PyTorch / sinklab, peak RSS, and sinklab's
achieved matmul GFLOP/s.

  python3 bench/vs_pytorch.py [--configs 1x1_softmax,4x4_softmax,medium] [--threads 1,2] [--rounds 3]

Needs python3-torch (scripts/setup.sh with SINKLAB_WITH_TORCH=1) and a Release build in build/.
"""
import argparse
import json
import os
import shutil
import statistics
import tempfile
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PAPER = ["1x1_softmax", "1x1_relu", "2x2_softmax", "2x2_relu", "4x4_softmax", "4x4_relu"]


def measure(cmd, env):
    """Runs cmd as a child and returns (stdout, peak RSS MB) using wait4's rusage."""
    pid = os.fork()
    if pid == 0:
        out_fd = os.open(env["_OUT"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
        os.dup2(out_fd, 1)
        err_fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(err_fd, 2)
        child_env = {k: v for k, v in env.items() if k != "_OUT"}
        os.execvpe(cmd[0], cmd, child_env)
    _, status, usage = os.wait4(pid, 0)
    with open(env["_OUT"]) as f:
        out = f.read()
    if status != 0:
        sys.exit(f"failed (status {status}): {' '.join(cmd)}")
    return out, usage.ru_maxrss / 1024.0


def sinklab_round(config, threads, env, min_time):
    path = "configs/bench/medium.yaml" if config == "medium" else f"configs/paper/{config}.yaml"
    bench = os.path.join(ROOT, "build", "bench", "train_step_bench")
    name = f"train_step/{config}/{threads}/real_time"
    out, rss = measure([bench, f"--benchmark_filter=^{name}$", f"--benchmark_min_time={min_time}",
                        "--benchmark_format=json"], env)
    result = [b for b in json.loads(out)["benchmarks"] if b["name"] == name][0]
    scale = {"us": 1e-3, "ms": 1.0, "ns": 1e-6}[result["time_unit"]]
    return result["real_time"] * scale, rss, result.get("GFLOP/s", 0.0)


def sinklab_rss(config, threads, env):
    """Peak RSS of a real `sinklab train` process (a few steps, evaluation included): the benchmark
    binary builds a fresh trainer for every timing run, so its own peak overstates one run's memory."""
    path = "configs/bench/medium.yaml" if config == "medium" else f"configs/paper/{config}.yaml"
    out = tempfile.mkdtemp(prefix="sinklab_rss_")
    try:
        _, rss = measure([os.path.join(ROOT, "build", "sinklab"), "train", os.path.join(ROOT, path), "--set",
                          f"train.max_steps={3 if config == 'medium' else 50}", "--threads", str(threads), "--out",
                          os.path.join(out, "run"), "--quiet"], env)
    finally:
        shutil.rmtree(out, ignore_errors=True)
    return rss


def torch_round(config, threads, env, steps):
    twin = os.path.join(ROOT, "tools", "torch_twin.py")
    out, rss = measure(["/usr/bin/python3", twin, "--config", config, "--threads", str(threads), "--warmup", "5",
                        "--steps", str(steps), "--repeats", "3"], env)
    return json.loads(out.strip().splitlines()[-1])["ms_per_step_median"], rss


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--configs", default=",".join(PAPER + ["medium"]))
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    rows = []
    for config in args.configs.split(","):
        for threads in [int(t) for t in args.threads.split(",")]:
            env = dict(os.environ, OMP_NUM_THREADS=str(threads), OPENBLAS_NUM_THREADS=str(threads),
                       _OUT=f"/tmp/sinklab_vs_pytorch_{os.getpid()}.out")
            ours, theirs, our_rss, their_rss, gflops = [], [], [sinklab_rss(config, threads, env)], [], []
            for _ in range(args.rounds):  # alternate, so both see the same machine load
                ms, _, gf = sinklab_round(config, threads, env, 0.5 if config != "medium" else 2)
                ours.append(ms), gflops.append(gf)
                ms, rss = torch_round(config, threads, env, 20 if config != "medium" else 2)
                theirs.append(ms), their_rss.append(rss)
            rows.append((config, threads, statistics.median(ours), statistics.median(theirs), max(our_rss), max(their_rss),
                         statistics.median(gflops)))
            r = rows[-1]
            print(f"{r[0]:12s} threads {r[1]}: sinklab {r[2]:9.3f} ms  pytorch {r[3]:9.3f} ms  ratio {r[3] / r[2]:6.1f}x  "
                  f"rss {r[4]:6.0f} / {r[5]:6.0f} MB  sinklab {r[6]:6.1f} GFLOP/s", flush=True)
    print("\n| config | threads | sinklab ms/step | PyTorch ms/step | PyTorch / sinklab | peak RSS sinklab / PyTorch (MB) | sinklab GFLOP/s |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r[0]} | {r[1]} | {r[2]:.3f} | {r[3]:.3f} | {r[3] / r[2]:.1f}x | {r[4]:.0f} / {r[5]:.0f} | {r[6]:.1f} |")


if __name__ == "__main__":
    main()
