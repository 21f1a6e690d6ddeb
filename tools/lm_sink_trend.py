#!/usr/bin/env python3
"""Does a language model's first-token sink grow with the tokens it has seen, and where would it cross eps?

  /usr/bin/python3 tools/lm_sink_trend.py RUN_OR_SWEEP [RUN_OR_SWEEP ...] [--eps 0.3] [--figure docs/figures/x.png]

For every run (a `sinklab train` folder, or every started run of a `sinklab compare` folder), read through
sinklab.Run (build/python; Debian's /usr/bin/python3), from the evaluations in metrics.jsonl (`extreme_tokens.gu_bos`: Gu et al.'s protocol, windows of 64 with BOS,
docs/sinks-in-language-models.md):
- alpha_0 of the strongest head and the share of heads with alpha_0 >= eps (Gu's Sink_1^eps with BOS), against
  tokens seen = step x batch x (T - 1), T the training context;
- the final evaluation of a finished run (summary.json) as its last point;
- a least-squares line alpha_0 = a + b log10(tokens) over the evaluations of the second half of the run, with
  95 % t-intervals, and where the line would reach eps (with the tokens where the interval's bounds reach it);
  "never" when the slope is not above zero at 95 %; for a run that stays at or above eps from some
  evaluation to its end, that evaluation ("measured"); for one that reached eps and fell back, where it first did.
Prints a markdown table; --figure draws the curves with gnuplot (Debian's gnuplot).
"""
import argparse
import math
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "build", "python"))
import sinklab  # noqa: E402  (build/python: the run files' one reader)

# Two-sided 95 % t quantiles by degrees of freedom (beyond 30: the normal's).
T95 = {1: 12.71, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262, 10: 2.228,
       12: 2.179, 15: 2.131, 20: 2.086, 25: 2.060, 30: 2.042}


def t95(dof):
    best = min((d for d in T95 if d >= dof), default=None)
    return T95[best] if best is not None else 1.96


def runs_of(paths):
    """Every run: a `sinklab train` folder, or each started run of a `sinklab compare` folder."""
    out = []
    for p in paths:
        if os.path.isfile(os.path.join(p, "sweep.json")):
            out += [r for r in sinklab.Sweep(p).runs if r.state != "not started"]
        else:
            out.append(sinklab.Run(p))
    return out


def curve(run, eps):
    """(tokens seen, largest alpha_0, share of heads >= eps) at each evaluation with Gu's protocol (BOS)."""
    batch, seq_len = run.config["train"]["batch_size"], run.config["task"]["seq_len"]
    evaluations = sorted(run.extreme_tokens.items())
    if run.finished and run.summary.get("extreme_tokens"):  # the final evaluation is in summary.json only
        evaluations.append((run.summary["steps"], run.summary["extreme_tokens"]))
    points = []
    for step, report in evaluations:
        gu = report.get("gu_bos")
        if not gu or not gu.get("heads"):
            continue
        alphas = [h["alpha"][0] for h in gu["heads"]]
        points.append((step * batch * (seq_len - 1), max(alphas), sum(a >= eps for a in alphas) / len(alphas)))
    return points, seq_len


def trend(points, eps):
    """Line alpha = a + b log10(tokens) over the second half (tokens > 0); the crossing of eps."""
    late = [(math.log10(t), y) for t, y, _ in points[len(points) // 2:] if t > 0]
    if len(late) < 3:
        return None
    n = len(late)
    mx, my = sum(x for x, _ in late) / n, sum(y for _, y in late) / n
    sxx = sum((x - mx) ** 2 for x, _ in late)
    b = sum((x - mx) * (y - my) for x, y in late) / sxx
    a = my - b * mx
    resid = sum((y - a - b * x) ** 2 for x, y in late) / (n - 2)
    half = t95(n - 2) * math.sqrt(resid / sxx)
    out = {"slope": b, "slope_low": b - half, "slope_high": b + half, "n": n}
    if b - half > 0:
        out["cross"] = 10 ** ((eps - a) / b)
        # The slope's bounds through the centre of the fit: the earliest and latest crossing the data allow.
        bounds = sorted([10 ** (mx + (eps - my) / (b + half)), 10 ** (mx + (eps - my) / (b - half))])
        out["cross_early"], out["cross_late"] = bounds
    return out


def tokens_text(t):
    return f"{t / 1e9:.3g}B" if t >= 1e9 else f"{t / 1e6:.3g}M"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("paths", nargs="+")
    parser.add_argument("--eps", type=float, default=0.3)
    parser.add_argument("--figure", help="PNG to draw (gnuplot)")
    args = parser.parse_args()
    runs = runs_of(args.paths)
    print(f"| run | T | tokens seen | largest alpha_0 (Gu, BOS) | heads with alpha_0 >= {args.eps} | "
          f"slope per decade of tokens (95 %) | reaches {args.eps} at |")
    print("|---|---|---|---|---|---|---|")
    series = []
    for run in runs:
        points, seq_len = curve(run, args.eps)
        if not points:
            print(f"| {run.name} | {seq_len} | no evaluation with Gu's protocol yet | | | | |")
            continue
        series.append((run.name, points))
        last = points[-1]
        fit = trend(points, args.eps)
        touched = next((t for t, y, _ in points if y >= args.eps), None)
        held = None  # the first evaluation of the run's last stretch at or above eps
        for t, y, _ in reversed(points):
            if y < args.eps:
                break
            held = t
        if fit is None:
            slope, cross = "too few evaluations", "-"
        else:
            slope = f"{fit['slope']:+.3f} ({fit['slope_low']:+.3f} .. {fit['slope_high']:+.3f})"
            cross = (f"{tokens_text(fit['cross'])} ({tokens_text(fit['cross_early'])} .. "
                     f"{tokens_text(fit['cross_late'])})") if "cross" in fit else "never (slope not above 0)"
        # Measured, not extrapolated, once a run has been there: the line of a run past eps says where it goes next.
        if held is not None:
            cross = f"{tokens_text(held)} and after, measured"
        elif touched is not None:
            cross = f"touched at {tokens_text(touched)}, not held; line: {cross}"
        print(f"| {run.name} | {seq_len} | {tokens_text(last[0])} | {last[1]:.3f} | "
              f"{100 * last[2]:.0f} % | {slope} | {cross} |")
    if args.figure and series:
        plots = ", ".join(f"'-' using 1:2 with linespoints title '{name.replace('_', ' ')}'" for name, _ in series)
        script = (f"set terminal pngcairo size 900,520\nset output '{args.figure}'\nset logscale x\n"
                  f"set xlabel 'tokens seen'\nset ylabel 'largest alpha_0 (Gu protocol, BOS)'\nset key left top\n"
                  f"set yrange [0:*]\nset arrow from graph 0, first {args.eps} to graph 1, first {args.eps} nohead dt 2\n"
                  f"plot {plots}\n" + "\n".join(
                      "\n".join(f"{t} {y}" for t, y, _ in pts if t > 0) + "\ne" for _, pts in series) + "\n")
        done = subprocess.run(["gnuplot"], input=script, text=True, capture_output=True)
        if done.returncode != 0:
            sys.exit(f"gnuplot failed: {done.stderr}")
        print(f"\nfigure: {args.figure}")


if __name__ == "__main__":
    main()
