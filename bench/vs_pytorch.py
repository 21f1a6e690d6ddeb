#!/usr/bin/env python3
"""sinklab versus its PyTorch twin (tools/torch_twin.py), side by side in one run.

For every config and thread count the two programs are run alternately `--rounds` times; each round
times full training steps after a warm-up (sinklab: build/bench/train_step_bench; PyTorch: the twin).
Peak resident memory: of the twin's timing process, and of a short `sinklab train` run of the same
config. Printed: median ms/step of each, the ratio PyTorch / sinklab, peak RSS, and sinklab's
achieved matmul GFLOP/s.

  python3 bench/vs_pytorch.py [--configs 1x1_softmax,4x4_softmax,medium] [--threads 1,2] [--rounds 3] [--isa avx2]

--isa LEVEL runs both sides at one ISA level (sse42, avx, avx2, avx512; on 64-bit ARM neon, sve): sinklab's
kernels and oneDNN through SINKLAB_MAX_ISA, PyTorch's through ATEN_CPU_CAPABILITY, ONEDNN_MAX_CPU_ISA and
OPENBLAS_CORETYPE. On ARM (docs/arm64.md) the same command, without --isa, is the comparison to run.

Language models (need data/corpora/kjv.txt from scripts/get_corpus.sh): kjv_char
(configs/normlimits/kjv_char.yaml, char windows, T 1024 x 4) and gpt2_small (configs/bench/gpt2_small.yaml,
GPT-2-small's body on word-level KJV, 94M parameters, T 64 x 4; the twin draws uniformly random ids over
its 12,169 instead of the KJV's words: a step's time does not depend on them):

  python3 bench/vs_pytorch.py --configs kjv_char,gpt2_small [--threads 1,2] [--rounds 3] [--precision float32,bf16]
  python3 bench/vs_pytorch.py --t-sweep [--threads 1] [--rounds 3]   # kjv_char at T = 64 .. 2048, 4096 tokens a step

Each language-model round times 3 steps after 2 warm-up steps on both sides (sinklab:
build/bench/lm_step_bench; PyTorch: the twin's config of the same name with --seq-len/--batch). Per row:
ms/step, ms per 1k tokens, the ratio, peak RSS of both (a 2-step `sinklab train` with its final
evaluation; the twin's timing process), sinklab's graph arena, and each side's achieved GFLOP/s (matmul
FLOPs of the step, attention over full T x T blocks, bench/step_flops.h) against the matmul peak: in
every round, build/bench/matmul_bench's 256^3, 512^3 and 2048x256x768 products at the row's thread
count, the best of their medians of 3 repetitions; the row shows the median over rounds. The parameter
counts of both (`sinklab inspect` on the train run, the twin's own count) are checked equal, and both
first losses are printed (at initialization about ln V + d 0.02^2 / 2, the spread of the logits:
kjv_char ln 64 = 4.16, gpt2_small ln 12,169 + 0.15 = 9.56).

Needs python3-torch (scripts/setup.sh with SINKLAB_WITH_TORCH=1) and a Release build in build/
(targets sinklab, train_step_bench, lm_step_bench, matmul_bench).
"""
import argparse
import json
import os
import re
import shutil
import statistics
import tempfile
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PAPER = ["1x1_softmax", "1x1_relu", "2x2_softmax", "2x2_relu", "4x4_softmax", "4x4_relu"]
# Per language model: its config file, the config's task.seq_len and train.batch_size, and what its
# 2-step `sinklab train` must override besides those (kjv_char's cosine needs warmup_steps < max_steps;
# gpt2_small's constant schedule rejects any warmup_steps).
LM_SPECS = {
    "kjv_char": ("configs/normlimits/kjv_char.yaml", 1024, 4, ["optimizer.warmup_steps=1"]),
    "gpt2_small": ("configs/bench/gpt2_small.yaml", 64, 4, []),
}
LM_CONFIGS = list(LM_SPECS)
SWEEP_TS = [64, 128, 256, 512, 1024, 2048]
SWEEP_TOKENS = 4096                  # per step: batch = 4096 / T (bench/lm_step_bench.cpp)
LM_WARMUP, LM_STEPS = 2, 3           # lm_step_bench's warm-up and Iterations(3)
PEAK_SHAPES = ["256x256x256", "512x512x512", "2048x256x768"]
# Debian libjemalloc2, in the machine's multiarch folder (x86_64-linux-gnu, aarch64-linux-gnu).
JEMALLOC = f"/usr/lib/{os.uname().machine}-linux-gnu/libjemalloc.so.2"
# --isa: one level for both sides. PyTorch's own kernels go by ATEN_CPU_CAPABILITY (default, avx2, avx512),
# its oneDNN by ONEDNN_MAX_CPU_ISA, its OpenBLAS by OPENBLAS_CORETYPE (the cores of that ISA).
ISA_ENV = {
    "sse42": {"SINKLAB_MAX_ISA": "sse42", "ATEN_CPU_CAPABILITY": "default", "ONEDNN_MAX_CPU_ISA": "SSE41",
              "OPENBLAS_CORETYPE": "Nehalem"},
    "avx": {"SINKLAB_MAX_ISA": "avx", "ATEN_CPU_CAPABILITY": "default", "ONEDNN_MAX_CPU_ISA": "AVX",
            "OPENBLAS_CORETYPE": "Sandybridge"},
    "avx2": {"SINKLAB_MAX_ISA": "avx2", "ATEN_CPU_CAPABILITY": "avx2", "ONEDNN_MAX_CPU_ISA": "AVX2",
             "OPENBLAS_CORETYPE": "Haswell"},
    "avx512": {"SINKLAB_MAX_ISA": "avx512", "ATEN_CPU_CAPABILITY": "avx512", "ONEDNN_MAX_CPU_ISA": "AVX512_CORE",
               "OPENBLAS_CORETYPE": "SkylakeX"},
    # 64-bit ARM (docs/arm64.md): PyTorch 1.13 has one kernel set there ("default") and oneDNN 2.6 no cap, so
    # only sinklab's own kernels change level; OpenBLAS's cores are NEON ones either way.
    "neon": {"SINKLAB_MAX_ISA": "neon", "ATEN_CPU_CAPABILITY": "default"},
    "sve": {"SINKLAB_MAX_ISA": "sve", "ATEN_CPU_CAPABILITY": "default"},
}
TWIN_ENV = {}  # extra environment of the twin's processes only (--twin-malloc)


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
    env = dict(env, **TWIN_ENV)
    twin = os.path.join(ROOT, "tools", "torch_twin.py")
    out, rss = measure(["/usr/bin/python3", twin, "--config", config, "--threads", str(threads), "--warmup", "5",
                        "--steps", str(steps), "--repeats", "3"], env)
    return json.loads(out.strip().splitlines()[-1])["ms_per_step_median"], rss


def bench_json(cmd, env, name):
    """Runs a Google Benchmark binary with --benchmark_format=json; returns (the named result, peak RSS MB)."""
    out, rss = measure(cmd + ["--benchmark_format=json"], env)
    found = [b for b in json.loads(out)["benchmarks"] if b["name"] == name]
    if not found:
        sys.exit(f"{cmd[0]}: no benchmark named {name}")
    if found[0].get("error_occurred"):
        sys.exit(f"{name}: {found[0].get('error_message', 'skipped')}")
    return found[0], rss


def matmul_peak(threads, env):
    """The best of matmul_bench's large products at this thread count (median of 3 repetitions each)."""
    bench = os.path.join(ROOT, "build", "bench", "matmul_bench")
    out, _ = measure([bench, f"--benchmark_filter=^matmul/({'|'.join(PEAK_SHAPES)})/real_time$", "--benchmark_min_time=0.2",
                      "--benchmark_repetitions=3", "--benchmark_report_aggregates_only=true",
                      "--benchmark_format=json"], env)
    medians = [b["GFLOP/s"] for b in json.loads(out)["benchmarks"] if b.get("aggregate_name") == "median"]
    if len(medians) != len(PEAK_SHAPES):
        sys.exit(f"{bench}: expected {len(PEAK_SHAPES)} medians, got {len(medians)}")
    return max(medians)


def lm_sinklab_round(config, seq_len, threads, env, sweep, bf16=False):
    """ms/step, GFLOP/s and arena MB of lm_step_bench (2 warm-up steps, 3 timed); bf16: train.precision bf16."""
    bench = os.path.join(ROOT, "build", "bench", "lm_step_bench")
    name = f"lm_step_t_sweep/{config}/{seq_len}/{threads}/iterations:{LM_STEPS}/real_time" if sweep else \
        f"lm_step{'_bf16' if bf16 else ''}/{config}/{threads}/iterations:{LM_STEPS}/real_time"
    result, _ = bench_json([bench, f"--benchmark_filter=^{re.escape(name)}$"], env, name)
    scale = {"us": 1e-3, "ms": 1.0, "ns": 1e-6, "s": 1e3}[result["time_unit"]]
    return result["real_time"] * scale, result["GFLOP/s"], result["arena_MB"]


def lm_sinklab_train(config, seq_len, batch, threads, env, bf16=False):
    """Peak RSS of a real 2-step `sinklab train` (its final evaluation included), the model's parameter
    count (`sinklab inspect` on that run) and its first training loss (metrics.jsonl, step 0)."""
    out = tempfile.mkdtemp(prefix="sinklab_rss_")
    try:
        run = os.path.join(out, "run")
        path, _, _, extra = LM_SPECS[config]
        overrides = [f"task.corpus={os.path.join(ROOT, 'data', 'corpora', 'kjv.txt')}", f"task.seq_len={seq_len}",
                     f"train.batch_size={batch}", "train.max_steps=2", "train.eval_every=0", "train.log_every=1"] + extra
        if bf16:
            overrides.append("train.precision=bf16")
        _, rss = measure([os.path.join(ROOT, "build", "sinklab"), "train", os.path.join(ROOT, path)] +
                         [arg for o in overrides for arg in ("--set", o)] +
                         ["--threads", str(threads), "--out", run, "--quiet"], env)
        inspected, _ = measure([os.path.join(ROOT, "build", "sinklab"), "inspect", run], env)
        counts = re.findall(r"^(\d+) parameters$", inspected, re.MULTILINE)
        if len(counts) != 1:
            sys.exit(f"sinklab inspect {run}: no 'N parameters' line in its output")
        with open(os.path.join(run, "metrics.jsonl")) as f:
            first_loss = json.loads(f.readline())["loss"]
    finally:
        shutil.rmtree(out, ignore_errors=True)
    return rss, int(counts[0]), first_loss


def lm_torch_round(config, seq_len, batch, threads, env, autocast=False):
    env = dict(env, **TWIN_ENV)
    twin = os.path.join(ROOT, "tools", "torch_twin.py")
    out, rss = measure(["/usr/bin/python3", twin, "--config", config, "--threads", str(threads), "--seq-len",
                        str(seq_len), "--batch", str(batch), "--warmup", str(LM_WARMUP), "--steps", str(LM_STEPS),
                        "--repeats", "1"] + (["--autocast"] if autocast else []), env)
    return json.loads(out.strip().splitlines()[-1]), rss


def lm_row(label, seq_len, batch, threads, rounds, sweep, precision="float32"):
    """One language-model row (label: a key of LM_SPECS): sinklab and the twin alternately, `rounds` times,
    with the matmul peak. precision bf16: sinklab with train.precision bf16 against the twin under CPU
    autocast to bfloat16, and sinklab's float32 step timed in the same rounds (the bf16 speed-up)."""
    bf16 = precision == "bf16"
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), OPENBLAS_NUM_THREADS=str(threads),
               _OUT=f"/tmp/sinklab_vs_pytorch_{os.getpid()}.out")
    our_rss, our_params, our_first = lm_sinklab_train(label, seq_len, batch, threads, env, bf16)
    ours, theirs, our_gf, arena, their_rss, peaks, twin, float32s = [], [], [], [], [], [], None, []
    for _ in range(rounds):  # A B A B: both see the same machine load
        peaks.append(matmul_peak(threads, env))
        if bf16:
            float32s.append(lm_sinklab_round(label, seq_len, threads, env, sweep)[0])
        ms, gf, mb = lm_sinklab_round(label, seq_len, threads, env, sweep, bf16)
        ours.append(ms), our_gf.append(gf), arena.append(mb)
        twin, rss = lm_torch_round(label, seq_len, batch, threads, env, autocast=bf16)
        theirs.append(twin["ms_per_step_median"]), their_rss.append(rss)
    if twin["parameters"] != our_params:
        sys.exit(f"{label}: the twin has {twin['parameters']} parameters, sinklab {our_params}: not the same model")
    tokens = seq_len * batch
    our_ms, their_ms = statistics.median(ours), statistics.median(theirs)
    our_gflops = statistics.median(our_gf)
    flops_g = our_gflops * our_ms * 1e-3  # GFLOP per step: the same count for both sides
    row = dict(label=label, T=seq_len, batch=batch, threads=threads, tokens=tokens, ours=our_ms, theirs=their_ms,
               ours_k=our_ms * 1000 / tokens, theirs_k=their_ms * 1000 / tokens, our_rss=our_rss,
               their_rss=max(their_rss), arena=max(arena), our_gf=our_gflops, their_gf=flops_g / (their_ms * 1e-3),
               peak=statistics.median(peaks), params=our_params, our_first=our_first,
               their_first=twin["first_loss"], ours_all=ours, theirs_all=theirs, precision=precision,
               float32=statistics.median(float32s) if bf16 else None)
    if bf16:
        print(f"{label:10s} threads {threads}: sinklab bf16 is {row['float32'] / our_ms:.2f}x its float32 step "
              f"({row['float32']:.1f} ms, same rounds: {[round(v) for v in float32s]})", flush=True)
    print(f"{label:10s} {precision:7s} T {seq_len:4d} x {batch:2d} threads {threads}: sinklab {our_ms:9.1f} ms  pytorch {their_ms:9.1f} ms  "
          f"ratio {their_ms / our_ms:5.2f}x  rss {our_rss:6.0f} / {row['their_rss']:6.0f} MB  arena {row['arena']:6.0f} MB  "
          f"GFLOP/s {our_gflops:5.1f} / {row['their_gf']:5.1f} of {row['peak']:5.1f}  parameters {our_params} (both)  "
          f"first loss {our_first:.3f} / {row['their_first']:.3f}  rounds {[round(v) for v in ours]} / "
          f"{[round(v) for v in theirs]} ms", flush=True)
    return row


def print_lm_table(rows):
    print("\n| config | precision | T | batch | threads | sinklab ms/step | PyTorch ms/step | sinklab ms / 1k tokens | "
          "PyTorch ms / 1k tokens | PyTorch / sinklab | peak RSS sinklab / PyTorch (MB) | sinklab arena (MB) | "
          "GFLOP/s sinklab / PyTorch | % of matmul peak sinklab / PyTorch (peak GFLOP/s) | sinklab float32 / bf16 |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        speedup = f"{r['float32'] / r['ours']:.2f}x" if r["float32"] else "-"
        print(f"| {r['label']} | {'bf16 / autocast' if r['precision'] == 'bf16' else 'float32'} | {r['T']} | {r['batch']} | {r['threads']} | {r['ours']:.1f} | {r['theirs']:.1f} | "
              f"{r['ours_k']:.2f} | {r['theirs_k']:.2f} | {r['theirs'] / r['ours']:.2f}x | {r['our_rss']:.0f} / "
              f"{r['their_rss']:.0f} | {r['arena']:.0f} | {r['our_gf']:.1f} / {r['their_gf']:.1f} | "
              f"{100 * r['our_gf'] / r['peak']:.0f}% / {100 * r['their_gf'] / r['peak']:.0f}% ({r['peak']:.0f}) | "
              f"{speedup} |")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--configs", help=f"comma-separated, of {', '.join(PAPER + ['medium'] + LM_CONFIGS)} "
                        "(default: the paper configs and medium; none with --t-sweep)")
    parser.add_argument("--t-sweep", action="store_true",
                        help=f"kjv_char at T = {', '.join(map(str, SWEEP_TS))}, {SWEEP_TOKENS} tokens per step")
    parser.add_argument("--seq-lens", default=",".join(map(str, SWEEP_TS)),
                        help="the T values of --t-sweep (a subset of the default)")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--precision", default="float32",
                        help="language models: comma-separated of float32, bf16 (sinklab train.precision: bf16 "
                             "against the twin under torch.autocast('cpu', dtype=torch.bfloat16), with sinklab's "
                             "float32 step timed in the same rounds)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--twin-malloc", choices=["glibc", "jemalloc"], default="glibc",
                        help="the twin's allocator: glibc maps and unmaps every tensor above 32 MB (T x T scores from "
                             "T = 256 at 4096 tokens), so each step faults its pages in again; jemalloc (Debian "
                             "libjemalloc2, preloaded into the twin only) checks whether that is what makes the twin's "
                             "long rows slow (measured: it is not, the twin is slower with jemalloc; docs/performance.md)")
    parser.add_argument("--isa", choices=list(ISA_ENV), help="force both sides to one ISA level: sinklab through "
                        "SINKLAB_MAX_ISA (its kernels and oneDNN), PyTorch through ATEN_CPU_CAPABILITY, "
                        "ONEDNN_MAX_CPU_ISA and OPENBLAS_CORETYPE (default: each side's best)")
    args = parser.parse_args()
    if args.isa:
        os.environ.update(ISA_ENV[args.isa])
        print(f"ISA level {args.isa}: {' '.join(f'{k}={v}' for k, v in ISA_ENV[args.isa].items())}", flush=True)
    if args.twin_malloc == "jemalloc":
        if not os.path.isfile(JEMALLOC):
            sys.exit(f"--twin-malloc jemalloc needs {JEMALLOC}: apt-get install libjemalloc2 "
                     "(scripts/setup.sh with SINKLAB_WITH_TORCH=1)")
        TWIN_ENV["LD_PRELOAD"] = JEMALLOC
    sweep_ts = [int(t) for t in args.seq_lens.split(",") if t]
    if any(t not in SWEEP_TS for t in sweep_ts):
        parser.error(f"--seq-lens: lm_step_bench has T = {', '.join(map(str, SWEEP_TS))} only (got {args.seq_lens})")
    if args.rounds < 1:
        parser.error(f"--rounds must be >= 1 (got {args.rounds})")
    if args.configs is None:
        args.configs = "" if args.t_sweep else ",".join(PAPER + ["medium"])
    configs = [c for c in args.configs.split(",") if c]
    for c in configs:
        if c not in PAPER + ["medium"] + LM_CONFIGS:
            parser.error(f"--configs: unknown config {c!r} (known: {', '.join(PAPER + ['medium'] + LM_CONFIGS)})")
    thread_counts = [int(t) for t in args.threads.split(",")]
    if (args.t_sweep or any(c in LM_CONFIGS for c in configs)) and \
            not os.path.isfile(os.path.join(ROOT, "data", "corpora", "kjv.txt")):
        sys.exit("the language models need data/corpora/kjv.txt: run scripts/get_corpus.sh")
    precisions = [p for p in args.precision.split(",") if p]
    if not precisions or any(p not in ("float32", "bf16") for p in precisions):
        parser.error(f"--precision: a comma-separated list of float32, bf16 (got {args.precision!r})")
    if "bf16" in precisions and (args.t_sweep or not any(c in LM_CONFIGS for c in configs)):
        parser.error("--precision bf16 is for the language-model rows of --configs (kjv_char, gpt2_small), "
                     "not the paper configs or --t-sweep")
    lm_rows = []
    for config in [c for c in configs if c in LM_CONFIGS]:
        for threads in thread_counts:
            _, seq_len, batch, _ = LM_SPECS[config]
            for precision in precisions:
                lm_rows.append(lm_row(config, seq_len, batch, threads, args.rounds, sweep=False, precision=precision))
    if args.t_sweep:
        for threads in thread_counts:
            for seq_len in sweep_ts:
                lm_rows.append(lm_row("kjv_char", seq_len, SWEEP_TOKENS // seq_len, threads, args.rounds, sweep=True))
    if lm_rows:
        print_lm_table(lm_rows)
    rows = []
    for config in [c for c in configs if c not in LM_CONFIGS]:
        for threads in thread_counts:
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
    if not rows:
        return
    print("\n| config | threads | sinklab ms/step | PyTorch ms/step | PyTorch / sinklab | peak RSS sinklab / PyTorch (MB) | sinklab GFLOP/s |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r[0]} | {r[1]} | {r[2]:.3f} | {r[3]:.3f} | {r[3] / r[2]:.1f}x | {r[4]:.0f} / {r[5]:.0f} | {r[6]:.1f} |")


if __name__ == "__main__":
    main()
