"""What run_with_cache costs next to the C++ evaluation of the same inputs (docs/python.md, "Overheads").

Runs, interleaved A B C A B C ... in one process so that machine noise hits all three alike:
  A  model.evaluate()              the C++ evaluation of the task's evaluation set (chunks of 250, with
                                   the per-head sink statistics, exactly `sinklab eval`'s work)
  B  model.run_with_cache(chunk)   the same inputs, chunk by chunk, every activation kept as views
  C  model(chunk)                  the same passes without a cache
and prints the medians and the ratios B/A and B/C, for each thread count.

  scripts/python.sh bench/python_cache_overhead.py [--config configs/paper/4x4_softmax.yaml] [--rounds 7]
"""
import argparse
import statistics
import time

import sinklab


def timed(fn):
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", default="configs/paper/4x4_softmax.yaml")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--threads", default="1,2")
    args = parser.parse_args()
    for threads in [int(t) for t in args.threads.split(",")]:
        model = sinklab.build_model(args.config, [f"threads={threads}"])
        chunks = []  # the evaluation set's inputs, as the C++ evaluation chunks them
        model.evaluate(hooks={"blocks.0.resid_pre": lambda value, name: chunks.append(value.copy())})
        if model.config["model"].get("input_projection") or model.reads_tokens:
            raise SystemExit("this benchmark reads the inputs from blocks.0.resid_pre: use a model without an "
                             "input projection, positions or token input (the paper's configs)")
        times = {"A evaluate": [], "B run_with_cache": [], "C plain pass": []}
        for _ in range(args.rounds):
            times["A evaluate"].append(timed(model.evaluate))
            times["B run_with_cache"].append(timed(lambda: [model.run_with_cache(c) for c in chunks]))
            times["C plain pass"].append(timed(lambda: [model(c) for c in chunks]))
        median = {k: statistics.median(v) for k, v in times.items()}
        samples = sum(len(c) for c in chunks)
        print(f"{args.config}, {samples} inputs in {len(chunks)} chunks, {threads} thread(s), median of {args.rounds}:")
        for k, v in median.items():
            print(f"  {k:<18} {v * 1e3:8.2f} ms")
        print(f"  B/A = {median['B run_with_cache'] / median['A evaluate']:.2f}, "
              f"B/C = {median['B run_with_cache'] / median['C plain pass']:.2f}")


if __name__ == "__main__":
    main()
