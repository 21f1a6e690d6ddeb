#!/usr/bin/env python3
"""How much of a run's time goes to evaluating it, for every training config in configs/.

  /usr/bin/python3 bench/evaluation_share.py [--configs configs/paper/1x1_softmax.yaml,...] [--steps 100]
      [--threads 1] [--max-seconds 900]

Per config: two short `build/sinklab train CONFIG` runs at its own settings, L = min(max_steps, --steps) steps
(more when a warm-up needs them), stop rules off, evaluations at step 0, L / 2 and the end: one without
attention snapshots, one with the config's own. From summary.json `time_seconds` (run_files/run_times.h),
metrics.jsonl and attention_snapshots.npz:

- per step: the `steps` phase over L;
- per evaluation: (`evaluations` + `analysis`) of the run without snapshots over its evaluations (the
  extreme-token analysis of a language model belongs to its evaluation);
- per snapshot: the extra `analysis` time of the run with snapshots over the snapshots it took;
- a default-length run: max_steps steps, an evaluation every eval_every and a final one, at most
  snapshot_limit + 1 snapshots; printed, the share of its time in evaluations and in snapshots.

A config whose max_steps is a cap rather than its length (the paper's end at their stop rule, after a few
thousand steps) is projected at max_steps; evaluations every eval_every steps are the same share at any
length, snapshots a larger one in a shorter run.
Needs a Release build in build/ (the sinklab binary and its Python module, read by Debian's /usr/bin/python3
with numpy) and data/corpora/kjv.txt for the language models (scripts/get_corpus.sh).
"""
import argparse
import glob
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SINKLAB = os.path.join(ROOT, "build", "sinklab")
sys.path.insert(0, os.path.join(ROOT, "build", "python"))
import sinklab  # noqa: E402  (build/python: the resolved configs)


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


def short_run(config, run_dir, length, every, snapshots, threads, max_seconds):
    """time_seconds, evaluations and snapshots taken of a short run (snapshots off, or at the config's own
    cadence)."""
    args = [SINKLAB, "train", config, "--set", f"train.max_steps={length}", "--set", f"train.eval_every={every}",
            "--set", "train.stop_max_abs_error=0", "--set", "train.stop_loss=0", "--threads", str(threads),
            "--out", run_dir, "--quiet", "--force"] + ([] if snapshots else ["--set", "analysis.snapshot_every=0"])
    done = subprocess.run(args, capture_output=True, text=True, cwd=ROOT, timeout=max_seconds)
    if done.returncode != 0:
        raise RuntimeError(done.stdout + done.stderr)
    run = sinklab.Run(run_dir)  # the run files' one reader
    snapshots = run.snapshots if snapshots else None
    # Every evaluation line carries extreme-token statistics; the final evaluation is in summary.json.
    return run.summary["time_seconds"], len(run.extreme_tokens) + 1, len(snapshots["steps"]) if snapshots else 0


def measure(config, threads, max_seconds, steps):
    out = tempfile.mkdtemp(prefix="sinklab_share_")
    try:
        resolved = sinklab.load_config(os.path.join(ROOT, config))  # complete, defaults filled in
        train, analysis = resolved["train"], resolved["analysis"]
        max_steps, eval_every = int(train["max_steps"]), int(train["eval_every"])
        # Short: per-step, per-evaluation and per-snapshot costs do not depend on the length. Past any warm-up
        # (a cosine schedule needs more steps than it), with evaluations at step 0, the middle and the end.
        length = min(max_steps, max(steps, 2 * int(resolved["optimizer"]["warmup_steps"]) + 2))
        every = max(1, length // 2)
        try:
            times, evaluations, _ = short_run(config, os.path.join(out, "plain"), length, every, False, threads,
                                              max_seconds)
            snap_times, _, taken = short_run(config, os.path.join(out, "snapshots"), length, every,
                                             int(analysis["snapshot_every"]) > 0, threads, max_seconds)
        except subprocess.TimeoutExpired:
            return {"config": config, "error": f"longer than {max_seconds} s at L = {length} steps"}
        except RuntimeError as e:
            return {"config": config, "error": str(e)}
        per_step = times["steps"] / length
        per_eval = (times["evaluations"] + times["analysis"]) / evaluations
        per_snapshot = max(0.0, snap_times["analysis"] - times["analysis"]) / taken if taken else 0.0
        # A default-length run: an evaluation every eval_every steps and a final one; at most snapshot_limit
        # snapshots plus the final one (the interval doubles to keep 50-100).
        default_evals = (max_steps - 1) // eval_every + 2 if eval_every > 0 else 1
        default_snapshots = min(int(analysis["snapshot_limit"]) + 1, max_steps // max(1, int(analysis["snapshot_every"])) + 1) \
            if int(analysis["snapshot_every"]) > 0 else 0
        eval_time = default_evals * per_eval
        snapshot_time = default_snapshots * per_snapshot
        total = times["setup"] + max_steps * per_step + eval_time + snapshot_time + times["writing"]
        return {"config": config, "steps": length, "max_steps": max_steps, "eval_every": eval_every,
                "evaluations": evaluations, "per_step_ms": 1e3 * per_step, "per_eval_s": per_eval,
                "per_snapshot_s": per_snapshot, "snapshots": default_snapshots,
                "share_default": eval_time / total, "snapshot_share": snapshot_time / total}
    finally:
        shutil.rmtree(out, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--configs", help="comma-separated config paths (default: every training config in configs/)")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--max-seconds", type=float, default=600, help="give up on a config after this long")
    parser.add_argument("--steps", type=int, default=100, help="steps of each short run (at most max_steps)")
    args = parser.parse_args()
    if not os.path.isfile(SINKLAB):
        sys.exit(f"{SINKLAB} is missing: build first (./scripts/build.sh)")
    configs = args.configs.split(",") if args.configs else training_configs()
    rows = []
    for config in configs:
        row = measure(config, args.threads, args.max_seconds, args.steps)
        rows.append(row)
        if "error" in row:
            print(f"{config}: {row['error'].strip().splitlines()[-1] if row['error'].strip() else 'failed'}", flush=True)
        else:
            print(f"{config}: {row['steps']} steps, {row['per_step_ms']:.1f} ms/step, {row['per_eval_s']:.3f} s per "
                  f"evaluation, {row['per_snapshot_s']:.3f} s per snapshot; at {row['max_steps']} steps: evaluations "
                  f"{100 * row['share_default']:.1f} %, snapshots {100 * row['snapshot_share']:.1f} %", flush=True)
    print("\n| config | ms/step | s/evaluation | s/snapshot | default length (eval_every) | evaluations | "
          "snapshots (count) |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        if "error" in r:
            print(f"| {r['config']} | failed | | | | | |")
            continue
        flag = " **over 10 %**" if r["share_default"] > 0.10 else ""
        print(f"| {r['config']} | {r['per_step_ms']:.1f} | {r['per_eval_s']:.3f} | {r['per_snapshot_s']:.3f} | "
              f"{r['max_steps']} ({r['eval_every'] or 'end only'}) | {100 * r['share_default']:.1f} %{flag} | "
              f"{100 * r['snapshot_share']:.1f} % ({r['snapshots']}) |")


if __name__ == "__main__":
    main()
