#!/usr/bin/env python3
"""sinklab versus llm.c's CPU trainer (train_gpt2.c, fp32) on GPT-2-small's shape, side by side in one run.

  python3 bench/vs_llmc.py --llmc DIR [--threads 1,2] [--rounds 3]

DIR is a checkout of karpathy/llm.c (not part of this repository). The script builds its train_gpt2
with llm.c's own Makefile (`make train_gpt2`: -Ofast, OpenMP, -march=native where the compiler
supports it), then writes into a work folder, in llm.c's formats:
  - gpt2_124M.bin: random weights of configs/bench/gpt2_small.yaml's body (12 blocks, d 768, 12 heads,
    MLP 3072, learned positions with maxT = 64, tied embeddings) at sinklab's word vocabulary
    V = 12,169, padded to 12,288 as llm.c pads; matrices N(0, 0.02), LayerNorm weights 1, biases 0;
  - dev/data/tinyshakespeare/tiny_shakespeare_{train,val}.bin: uniformly random token ids;
  - gpt2_tokenizer.bin: placeholder token texts, so its sampling at steps 20 and 40 has an EOT id.
llm.c trains B 4 x T 64 for 41 steps and prints each step's own time; its ms/step is the median of
steps 1-40. sinklab's is (wall of a 13-step run - wall of a 3-step run) / 10 of
`sinklab train configs/bench/gpt2_small.yaml` (the same B, T, AdamW; start-up and the final evaluation
cancel). The two alternate (A B A B) `--rounds` times per thread count; printed per thread count:
median ms/step of each, tokens/s, GFLOP/s (matmul FLOPs of a training step: 3 x forward, attention
over full T x T blocks) against the matmul peak measured in the same round (build/bench/matmul_bench,
as bench/vs_pytorch.py), peak RSS, and the ratio llm.c / sinklab.

Needs a Release build in build/ (targets sinklab, matmul_bench), python3-numpy, the corpus
(scripts/get_corpus.sh), make and a C compiler with OpenMP.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

try:
    import numpy as np
except ImportError:  # one clear line instead of a traceback
    sys.exit("bench/vs_llmc.py needs NumPy for llm.c's weight and token files: apt-get install python3-numpy "
             "(and run it with Debian's /usr/bin/python3)")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vs_pytorch import ROOT, matmul_peak, measure  # noqa: E402  (the same peak and RSS measurements)

CONFIG = "configs/bench/gpt2_small.yaml"
LAYERS, CHANNELS, HEADS, VOCAB, MAX_T = 12, 768, 12, 12169, 64
PADDED_VOCAB = (VOCAB + 127) // 128 * 128
BATCH, SEQ = 4, 64
SHORT, LONG = 3, 13  # sinklab's two run lengths


def llmc_parameter_sizes():
    """llm.c's parameter tensors in file order (train_gpt2.c, fill_in_parameter_sizes), with their fill."""
    L, C, Vp, T = LAYERS, CHANNELS, PADDED_VOCAB, MAX_T
    return [("wte", Vp * C, "normal"), ("wpe", T * C, "normal"), ("ln1w", L * C, "one"), ("ln1b", L * C, "zero"),
            ("qkvw", L * 3 * C * C, "normal"), ("qkvb", L * 3 * C, "zero"), ("attprojw", L * C * C, "normal"),
            ("attprojb", L * C, "zero"), ("ln2w", L * C, "one"), ("ln2b", L * C, "zero"),
            ("fcw", L * 4 * C * C, "normal"), ("fcb", L * 4 * C, "zero"), ("fcprojw", L * 4 * C * C, "normal"),
            ("fcprojb", L * C, "zero"), ("lnfw", C, "one"), ("lnfb", C, "zero")]


def write_llmc_inputs(work):
    rng = np.random.default_rng(0)
    header = np.zeros(256, dtype=np.int32)
    header[:8] = [20240326, 3, MAX_T, VOCAB, LAYERS, HEADS, CHANNELS, PADDED_VOCAB]
    with open(os.path.join(work, "gpt2_124M.bin"), "wb") as f:
        f.write(header.tobytes())
        for _, count, fill in llmc_parameter_sizes():
            if fill == "normal":
                values = rng.normal(0.0, 0.02, count).astype(np.float32)
            else:
                values = np.full(count, 1.0 if fill == "one" else 0.0, dtype=np.float32)
            f.write(values.tobytes())
    data = os.path.join(work, "dev", "data", "tinyshakespeare")
    os.makedirs(data, exist_ok=True)
    for name, count in (("train", 200_000), ("val", 20_000)):
        tokens = rng.integers(0, VOCAB, count, dtype=np.uint16)
        head = np.zeros(256, dtype=np.int32)
        head[:3] = [20240520, 1, count]
        with open(os.path.join(data, f"tiny_shakespeare_{name}.bin"), "wb") as f:
            f.write(head.tobytes() + tokens.tobytes())
    head = np.zeros(256, dtype=np.uint32)
    head[:4] = [20240328, 2, VOCAB, 0]  # version 2 carries the EOT id: 0
    with open(os.path.join(work, "gpt2_tokenizer.bin"), "wb") as f:
        f.write(head.tobytes())
        for i in range(VOCAB):
            text = f" t{i}".encode()
            f.write(bytes([len(text)]) + text)
    return sum(count for _, count, _ in llmc_parameter_sizes())


def build_llmc(llmc):
    if not os.path.isfile(os.path.join(llmc, "train_gpt2.c")):
        sys.exit(f"--llmc {llmc}: no train_gpt2.c there; give a checkout of karpathy/llm.c")
    result = subprocess.run(["make", "-C", llmc, "train_gpt2"], capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"make -C {llmc} train_gpt2 failed:\n{result.stdout[-2000:]}{result.stderr[-2000:]}")
    return os.path.join(llmc, "train_gpt2")


def llmc_round(binary, work, threads):
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), _OUT=os.path.join(work, "llmc.out"))
    cwd = os.getcwd()
    os.chdir(work)  # train_gpt2 opens its files relative to the working directory
    try:
        out, rss = measure([binary], env)
    finally:
        os.chdir(cwd)
    times = {int(s): float(ms) for s, ms in re.findall(r"^step (\d+): train loss [-\d.e+]+ \(took ([\d.]+) ms\)$", out, re.MULTILINE)}
    if len(times) != 41:
        sys.exit(f"{binary}: expected 41 'step N: ... (took X ms)' lines, got {len(times)}")
    return statistics.median(times[s] for s in range(1, 41)), rss


def sinklab_run(steps, threads, work):
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), _OUT=os.path.join(work, "sinklab.out"))
    cmd = [os.path.join(ROOT, "build", "sinklab"), "train", os.path.join(ROOT, CONFIG),
           "--set", f"task.corpus={os.path.join(ROOT, 'data', 'corpora', 'kjv.txt')}", "--set", f"train.max_steps={steps}",
           "--threads", str(threads), "--out", os.path.join(work, f"run{steps}"), "--force", "--quiet"]
    started = time.perf_counter()
    _, rss = measure(cmd, env)
    return time.perf_counter() - started, rss


def sinklab_round(threads, work):
    short, _ = sinklab_run(SHORT, threads, work)
    long, rss = sinklab_run(LONG, threads, work)
    return (long - short) * 1000 / (LONG - SHORT), rss


def step_gflop():
    """Matmul FLOPs of one training step (forward x 3), attention over full T x T blocks."""
    tokens, C, L = BATCH * SEQ, CHANNELS, LAYERS
    forward = tokens * (2 * L * 12 * C * C + 2 * C * VOCAB + L * 4 * SEQ * C)
    return 3 * forward / 1e9


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--llmc", required=True, help="a checkout of karpathy/llm.c")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    if not os.path.isfile(os.path.join(ROOT, "data", "corpora", "kjv.txt")):
        sys.exit("data/corpora/kjv.txt is missing: run scripts/get_corpus.sh")
    binary = build_llmc(os.path.abspath(args.llmc))
    work = tempfile.mkdtemp(prefix="sinklab_vs_llmc_")
    parameters = write_llmc_inputs(work)
    print(f"llm.c inputs in {work}: {parameters} parameters (padded vocabulary {PADDED_VOCAB}), B {BATCH} x T {SEQ}",
          flush=True)
    gflop = step_gflop()
    rows = []
    for threads in [int(t) for t in args.threads.split(",")]:
        ours, theirs, peaks, our_rss, their_rss = [], [], [], [], []
        env = dict(os.environ, OMP_NUM_THREADS=str(threads), _OUT=os.path.join(work, "peak.out"))
        for _ in range(args.rounds):  # A B A B: both see the same machine load
            peaks.append(matmul_peak(threads, env))
            ms, rss = sinklab_round(threads, work)
            ours.append(ms), our_rss.append(rss)
            ms, rss = llmc_round(binary, work, threads)
            theirs.append(ms), their_rss.append(rss)
            print(f"  threads {threads}: sinklab {ours[-1]:.0f} ms, llm.c {theirs[-1]:.0f} ms, peak {peaks[-1]:.1f} GFLOP/s",
                  flush=True)
        o, t, p = statistics.median(ours), statistics.median(theirs), statistics.median(peaks)
        rows.append((threads, o, t, p, max(our_rss), max(their_rss)))
    tokens = BATCH * SEQ
    print("\n| threads | sinklab ms/step | llm.c ms/step | llm.c / sinklab | tokens/s sinklab / llm.c | "
          "GFLOP/s sinklab / llm.c | % of matmul peak sinklab / llm.c (peak GFLOP/s) | peak RSS sinklab / llm.c (MB) |")
    print("|---|---|---|---|---|---|---|---|")
    for threads, o, t, p, orss, trss in rows:
        print(f"| {threads} | {o:.0f} | {t:.0f} | {t / o:.2f}x | {tokens * 1000 / o:.0f} / {tokens * 1000 / t:.0f} | "
              f"{gflop * 1000 / o:.1f} / {gflop * 1000 / t:.1f} | {100 * gflop * 1000 / o / p:.0f}% / "
              f"{100 * gflop * 1000 / t / p:.0f}% ({p:.0f}) | {orss:.0f} / {trss:.0f} |")


if __name__ == "__main__":
    main()
