#!/usr/bin/env python3
"""How much of a run's time goes to evaluating it, for every training config in configs/.

  python3 bench/evaluation_share.py [--configs configs/paper/1x1_softmax.yaml,...] [--threads 1] [--max-seconds 120]

Per config: one `build/sinklab train CONFIG` at its own settings, shortened to
L = min(max_steps, 2 x eval_every) steps (stop rules off, so every config trains its L steps), into a
temporary folder. From its summary.json `time_seconds` (run_files/run_times.h) and metrics.jsonl:

- per step: the `steps` phase over L;
- per evaluation: (`evaluations` + `analysis`) over the number of evaluations the run made (metrics lines with
  an evaluation, plus the final one); the attention snapshots are part of `analysis`, so this overstates
  an evaluation where the run took snapshots (their interval doubles: a long run takes 50-100 of them);
- the share at L as measured: (evaluations + analysis) / the run's total;
- the share of a default-length run, max_steps steps with an evaluation every eval_every and a final one:
  n_eval x per-evaluation / (setup + max_steps x per-step + n_eval x per-evaluation + writing at L).

A config whose max_steps is a cap rather than its length (the paper's, which end at their stop rule) is
projected at max_steps as well; its measured share at L is the number for a run that stops early.
Needs a Release build in build/ and data/corpora/kjv.txt for the language models (scripts/get_corpus.sh).
"""
import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SINKLAB = os.path.join(ROOT, "build", "sinklab")


def training_configs():
    """Every config under configs/ that `sinklab train` takes (the sweeps are not runs)."""
    out = []
    for path in sorted(glob.glob(os.path.join(ROOT, "configs", "*", "*.yaml"))):
        if os.path.basename(os.path.dirname(path)) == "sweeps":
            continue
        with open(path) as f:
            text = f.read()
        if "\ngrid:" in text or text.startswith("grid:") or "\nvariants:" in text:
            continue
        out.append(os.path.relpath(path, ROOT))
    return out


def key(text, section, name, default):
    """A `section: name: value` number from a config.yaml text (the written, complete config)."""
    inside = False
    for line in text.splitlines():
        if not line.startswith(" ") and line.rstrip().endswith(":"):
            inside = line.strip() == f"{section}:"
            continue
        if inside and line.strip().startswith(f"{name}:"):
            return float(line.split(":", 1)[1].split("#")[0].strip())
    return default


def measure(config, threads, max_seconds):
    out = tempfile.mkdtemp(prefix="sinklab_share_")
    run_dir = os.path.join(out, "run")
    try:
        # A 1-step run only to read the complete config the loader resolves (defaults included).
        probe = subprocess.run([SINKLAB, "train", config, "--set", "train.max_steps=1", "--set", "train.eval_every=0",
                                "--set", "analysis.snapshot_every=0", "--set", "analysis.gu_windows=0",
                                "--threads", str(threads), "--out", os.path.join(out, "probe"), "--quiet"],
                               capture_output=True, text=True, cwd=ROOT)
        if probe.returncode != 0:
            return {"config": config, "error": probe.stdout + probe.stderr}
        with open(os.path.join(out, "probe", "config.yaml")) as f:
            full = f.read()
        max_steps = int(key(full, "train", "max_steps", 0))
        eval_every = int(key(full, "train", "eval_every", 0))
        length = min(max_steps, 2 * eval_every) if eval_every > 0 else max_steps
        args = [SINKLAB, "train", config, "--set", f"train.max_steps={length}", "--set", "train.stop_max_abs_error=0",
                "--set", "train.stop_loss=0", "--threads", str(threads), "--out", run_dir, "--quiet"]
        try:
            done = subprocess.run(args, capture_output=True, text=True, cwd=ROOT, timeout=max_seconds)
        except subprocess.TimeoutExpired:
            return {"config": config, "error": f"longer than {max_seconds} s at L = {length} steps"}
        if done.returncode != 0:
            return {"config": config, "error": done.stdout + done.stderr}
        with open(os.path.join(run_dir, "summary.json")) as f:
            times = json.load(f)["time_seconds"]
        with open(os.path.join(run_dir, "metrics.jsonl")) as f:
            lines = [json.loads(line) for line in f if line.strip()]
        evaluations = sum(1 for m in lines if m.get("eval_loss") is not None or m.get("eval_mse") is not None) + 1
        total = sum(times.values())
        per_step = times["steps"] / length
        per_eval = (times["evaluations"] + times["analysis"]) / evaluations
        default_evals = (max_steps - 1) // eval_every + 2 if eval_every > 0 else 1
        default_eval_time = default_evals * per_eval
        default_total = times["setup"] + max_steps * per_step + default_eval_time + times["writing"]
        return {"config": config, "steps": length, "max_steps": max_steps, "eval_every": eval_every,
                "evaluations": evaluations, "per_step_ms": 1e3 * per_step, "per_eval_s": per_eval,
                "share_measured": (times["evaluations"] + times["analysis"]) / total,
                "share_default": default_eval_time / default_total, "times": times}
    finally:
        shutil.rmtree(out, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--configs", help="comma-separated config paths (default: every training config in configs/)")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--max-seconds", type=float, default=600, help="give up on a config after this long")
    args = parser.parse_args()
    if not os.path.isfile(SINKLAB):
        sys.exit(f"{SINKLAB} is missing: build first (./scripts/build.sh)")
    configs = args.configs.split(",") if args.configs else training_configs()
    rows = []
    for config in configs:
        row = measure(config, args.threads, args.max_seconds)
        rows.append(row)
        if "error" in row:
            print(f"{config}: {row['error'].strip().splitlines()[-1] if row['error'].strip() else 'failed'}", flush=True)
        else:
            print(f"{config}: {row['steps']} steps, {row['evaluations']} evaluations, {row['per_step_ms']:.1f} ms/step, "
                  f"{row['per_eval_s']:.2f} s/evaluation, share {100 * row['share_measured']:.1f} % measured, "
                  f"{100 * row['share_default']:.1f} % at {row['max_steps']} steps", flush=True)
    print("\n| config | steps run | evaluations | ms/step | s/evaluation (analysis included) | share measured | "
          "share at max_steps (eval_every) |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        if "error" in r:
            print(f"| {r['config']} | failed | | | | | |")
            continue
        flag = " **over 10 %**" if r["share_default"] > 0.10 else ""
        print(f"| {r['config']} | {r['steps']} | {r['evaluations']} | {r['per_step_ms']:.1f} | {r['per_eval_s']:.2f} | "
              f"{100 * r['share_measured']:.1f} % | {100 * r['share_default']:.1f} % at {r['max_steps']} "
              f"({r['eval_every'] or 'end only'}){flag} |")


if __name__ == "__main__":
    main()
