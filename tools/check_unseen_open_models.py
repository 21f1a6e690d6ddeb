#!/usr/bin/env python3
"""Checks sinklab's open-model loader on random models the tests never saw (docs/open-models.md).

Usage: python3 tools/check_unseen_open_models.py [--build build] [--seed 101] [--work DIR]

For every family, a random checkpoint of sizes no fixture has (GQA ratio 3, untied embeddings,
rope_theta 500000, BF16 and sharded files, partial rotary, a sliding window shorter than the text) is
written by the PyTorch twin (tools/open_models_twin.py write-random, which also stores the twin's float64
reference), loaded with sinklab.load_model from the build's Python package, and compared: logits and every
layer's attention within 1e-5 of the reference's largest magnitude, as the committed fixtures are. Prints
one line per model and exits non-zero when one differs. Needs Debian's python3-torch (tools only).
"""
import argparse
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOLERANCE = 1e-5
# (name, write-random flags): sizes and options none of tests/fixtures/open_models has.
MODELS = [
    ("llama-gqa3-untied-theta5e5", "--family llama --hidden 72 --heads 6 --kv-heads 2 --untied --rope-theta 500000 --layers 3"),
    ("llama3-scaled-bf16-sharded", "--family llama --hidden 48 --heads 6 --kv-heads 2 --rope-theta 500000 --dtype BF16 "
                                   "--shards 3 --rope-scaling {\"rope_type\":\"llama3\",\"factor\":4,\"low_freq_factor\":1,"
                                   "\"high_freq_factor\":2,\"original_max_position_embeddings\":64}"),
    ("qwen2-gqa3", "--family qwen2 --hidden 48 --heads 6 --kv-heads 2 --rope-theta 1000000"),
    ("qwen3-headdim12", "--family qwen3 --hidden 40 --heads 6 --kv-heads 3 --head-dim 12 --untied"),
    ("mistral-window4", "--family mistral --hidden 48 --heads 6 --kv-heads 2 --sliding-window 4"),
    ("gpt_neox-sequential-bf16", "--family gpt_neox --hidden 40 --heads 5 --rotary-pct 0.5 --sequential --dtype BF16"),
    ("gpt_neox-parallel", "--family gpt_neox --hidden 64 --heads 4 --rotary-pct 0.25 --layers 3"),
    ("gpt2-5heads", "--family gpt2 --hidden 40 --heads 5 --layers 3"),
    ("opt-5heads", "--family opt --hidden 40 --heads 5 --dtype F16"),
]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", default=os.path.join(HERE, "..", "build"), help="the build folder (its python/)")
    parser.add_argument("--seed", type=int, default=101)
    parser.add_argument("--work", default=None, help="where the checkpoints go (default: a temporary folder)")
    args = parser.parse_args()
    work = args.work or tempfile.mkdtemp(prefix="sinklab-unseen-")
    failed = 0
    for name, flags in MODELS:
        folder = os.path.join(work, name)
        subprocess.run([sys.executable, os.path.join(HERE, "open_models_twin.py"), "write-random", *flags.split(),
                        "--out", folder, "--seed", str(args.seed)], check=True, stdout=subprocess.DEVNULL)
        # sinklab's package runs under Debian's interpreter, as scripts/python.sh does.
        compare = f"""
import sys; sys.path.insert(0, {HERE!r})
import numpy as np, sinklab
from golden_format import read_golden
m = sinklab.load_model({folder!r})
ids = np.load({os.path.join(folder, 'ids.npy')!r})
ref = read_golden({os.path.join(folder, 'expected.bin')!r})
logits, cache = m.run_with_cache(ids)
err = lambda got, want: float(np.abs(got - want).max() / np.abs(want).max())
worst = max([err(logits, ref['logits'])] + [err(cache['pattern', l], ref['probs.layer%d' % l]) for l in range(m.layers)])
print(worst)
"""
        env = dict(os.environ, PYTHONPATH=os.path.join(os.path.abspath(args.build), "python"))
        done = subprocess.run(["/usr/bin/python3", "-c", compare], env=env, capture_output=True, text=True)
        if done.returncode != 0:
            print(f"{name:32s} FAILED to load: {done.stderr.strip().splitlines()[-1]}")
            failed += 1
            continue
        worst = float(done.stdout.strip())
        ok = worst <= TOLERANCE
        failed += not ok
        print(f"{name:32s} max relative error {worst:.2e} {'ok' if ok else 'ABOVE ' + str(TOLERANCE)}")
    print(f"{len(MODELS) - failed} of {len(MODELS)} unseen models match the twin (checkpoints in {work})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
