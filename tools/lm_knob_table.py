#!/usr/bin/env python3
"""Gu et al.'s knob table from finished language-model sweeps: one row per variant, over its seeds.

  /usr/bin/python3 tools/lm_knob_table.py SWEEP [SWEEP ...] [--eps 0.3]

For example the softmax baseline and the knobs on the setting that sinks (docs/sinks-in-language-models.md):

  /usr/bin/python3 tools/lm_knob_table.py runs/lm-sinks-long-context runs/lm-sinks-long-context-knobs

Read through sinklab.Sweep (build/python; Debian's /usr/bin/python3), from each finished run's summary.json
(its final evaluation; `extreme_tokens`: Gu's protocol, windows of 64 with and without BOS). Columns, as mean ±
95 % t-interval over the finished seeds:
- validation loss;
- alpha_0 of the strongest head with BOS first, and the heads with alpha_0 >= eps pooled over the seeds
  (Gu's Sink_1^eps with BOS);
- alpha_0 of the strongest head on packed windows without BOS;
- the model's own sink, the largest share of a row it takes: the key-bias slot (`alpha_slot` with BOS), or
  the sink logit (1 - the head's `mass_mean`); "-" for a model without one;
- the largest massive-activation ratio.
Runs not finished yet are named in the last column with their state, never averaged.
"""
import argparse
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "build", "python"))
import sinklab  # noqa: E402  (build/python: the run files' one reader)

from lm_sink_trend import t95  # noqa: E402  (the same t quantiles as the trend table)


def mean_interval(values, digits=3):
    """"m ± h" with h the 95 % t half-width over the values; one value alone without an interval."""
    values = [v for v in values if v is not None]
    if not values:
        return "-"
    n = len(values)
    m = sum(values) / n
    if n == 1:
        return f"{m:.{digits}f} (one seed)"
    sd = math.sqrt(sum((v - m) ** 2 for v in values) / (n - 1))
    return f"{m:.{digits}f} ± {t95(n - 1) * sd / math.sqrt(n):.{digits}f}"


def own_sink(summary):
    """The largest share of a row the model's own sink takes, and which sink it is; None without one."""
    gu = summary["extreme_tokens"].get("gu_bos") or {}
    slots = [h["alpha_slot"] for h in gu.get("heads", []) if h.get("alpha_slot") is not None]
    if slots:
        return max(slots), "slot"
    if summary.get("normalizer") == "sink_logit":
        return max(1.0 - h["mass_mean"] for h in summary["heads"]), "logit"
    return None, None


def row_of(entries, eps):
    """The table cells of one variant's runs, (sweep.json entry, Run) pairs."""
    finished = [r for _, r in entries if r.finished and r.summary.get("extreme_tokens")]
    unfinished = [(e, r) for e, r in entries if r not in finished]
    losses, bos, no_bos, own, massive = [], [], [], [], []
    sink_heads = heads = 0
    kind = None
    for run in finished:
        s = run.summary
        losses.append(s["eval_loss"])
        alphas = [h["alpha"][0] for h in s["extreme_tokens"]["gu_bos"]["heads"]]
        bos.append(max(alphas))
        sink_heads += sum(a >= eps for a in alphas)
        heads += len(alphas)
        packed = s["extreme_tokens"].get("gu_no_bos") or {}
        no_bos.append(max((h["alpha"][0] for h in packed.get("heads", [])), default=None))
        share, kind = own_sink(s)
        own.append(share)
        massive.append(s.get("massive_ratio_max"))
    seeds = ",".join(str(r.summary["seed"]) for r in finished) or "-"
    pending = ", ".join(f"seed {e.get('seed', '?')}: {r.state}" for e, r in unfinished) or "-"
    sinks = f"{sink_heads} of {heads} ({100 * sink_heads / heads:.0f} %)" if heads else "-"
    own_text = f"{kind} {mean_interval(own, 2)}" if kind else "-"
    return [seeds, mean_interval(losses), mean_interval(bos), sinks, mean_interval(no_bos), own_text,
            mean_interval(massive, 1), pending]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sweeps", nargs="+", help="sweep folders written by `sinklab compare`")
    parser.add_argument("--eps", type=float, default=0.3)
    args = parser.parse_args()
    variants = {}
    for path in args.sweeps:
        try:
            sweep = sinklab.Sweep(path)
        except sinklab.Error as error:
            sys.exit(f"lm_knob_table.py: {error}")
        for entry, run in zip(sweep.manifest["runs"], sweep.runs):
            variants.setdefault(f"{entry['variant']} ({sweep.name})", []).append((entry, run))
    print(f"| setting | seeds | val loss | largest alpha_0, BOS first | heads with alpha_0 >= {args.eps} | "
          "largest alpha_0, no BOS | own sink (largest share of a row) | massive ratio | not finished |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, entries in variants.items():
        print("| " + " | ".join([name] + row_of(entries, args.eps)) + " |")


if __name__ == "__main__":
    main()
