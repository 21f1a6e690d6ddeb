#!/usr/bin/env python3
"""Markdown table of a token-task sweep (docs/tasks.md): per variant, the task metrics over active and
no-op rows and the sink statistics per head, mean over seeds with the min..max range.

    python3 scripts/task_sweep_table.py runs/tasks-bb

Reads SWEEP_DIR/runs/*/summary.json (written by `sinklab compare`); the variant is the run folder's
name before `_seed=`.
"""
import glob
import json
import math
import os
import sys
from collections import defaultdict


def cell(values, digits=3):
    values = [v for v in values if v is not None and not math.isnan(v)]
    if not values:
        return "-"
    mean = sum(values) / len(values)
    if len(values) == 1 or max(values) - min(values) < 0.5 * 10 ** -digits:
        return f"{mean:.{digits}f}"
    return f"{mean:.{digits}f} ({min(values):.{digits}f}..{max(values):.{digits}f})"


def main(sweep_dir):
    runs = defaultdict(list)
    for path in sorted(glob.glob(os.path.join(sweep_dir, "runs", "*", "summary.json"))):
        variant = os.path.basename(os.path.dirname(path)).split("_seed=")[0]
        runs[variant].append(json.load(open(path)))
    if not runs:
        sys.exit(f"no runs/*/summary.json under {sweep_dir}")
    first = next(iter(runs.values()))[0]
    heads = [(h["layer"], h["head"]) for h in first["heads"]]
    baselines = ", ".join(f"{k} = {v:.4f}" for k, v in first.get("task_baselines", {}).items())
    header = ["variant", "seeds", "active acc", "active loss", "no-op loss", "no-op acc"]
    head_keys = {"bos_mass_nontrigger_mean": "BOS@no-op", "trigger_bos": "BOS@active",
                 "mass_nontrigger_mean": "mass@no-op", "sink_score": "alpha_0"}
    # Columns some normalizers only have (null elsewhere): shown when any run has them.
    for key, label in [("virtual_mass_nontrigger_mean", "virtual@no-op"), ("gate_nontrigger_mean", "gate@no-op")]:
        if any(h.get(key) is not None for rs in runs.values() for r in rs for h in r["heads"]):
            head_keys[key] = label
    for l, h in heads:
        header += [f"L{l}H{h} {label}" for label in head_keys.values()]
    header.append("sink rate")
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    order = ["softmax", "relu_visible", "sink_logit", "softpick", "gated_per_head"]
    for variant in sorted(runs, key=lambda v: (order.index(v) if v in order else len(order), v)):
        rs = runs[variant]
        row = [variant, str(len(rs))]
        for key in ["eval_active_accuracy", "eval_active_loss", "eval_no_op_loss", "eval_no_op_accuracy"]:
            row.append(cell([r.get(key) for r in rs], 4 if "accuracy" in key else 3))
        for i in range(len(heads)):
            for key in head_keys:
                row.append(cell([r["heads"][i].get(key) for r in rs]))
        row.append(cell([r["sink_rate"] for r in rs], 2))
        print("| " + " | ".join(row) + " |")
    print(f"\n(baselines: {baselines}; T = {first['seq_len']}, eps = {first['sink_eps']}, uniform alpha_0 = "
          f"{first['uniform_baseline']:.4f})")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
