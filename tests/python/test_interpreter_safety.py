"""Inputs that once ended the interpreter (docs/python.md, "What cannot crash the interpreter"): each case
runs in a fresh interpreter, so that a segfault fails the test instead of ending pytest."""
import subprocess
import sys

import numpy as np
import pytest

import sinklab
from conftest import SOURCE_DIR

TINY = SOURCE_DIR / "configs/examples/tiny_block.yaml"


def run_isolated(code, *args):
    """Runs `code` (with sys.argv[1:] = args) in a new interpreter; returns its stdout, failing the test on
    a crash or any exit but 0."""
    done = subprocess.run([sys.executable, "-c", code, *map(str, args)], capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, f"the interpreter ended with {done.returncode}:\n{done.stdout}\n{done.stderr}"
    return done.stdout


REFUSED = """
import sys, numpy as np, sinklab
try:
    {call}
    print("ran")
except ValueError as error:
    print("ValueError:", error)
"""

# A broadcast (zero-stride) array costs a few bytes and stands for 2^30 positions: each entry point must
# refuse it, naming the argument, before allocating anything.
HUGE_TOKENS = "np.broadcast_to(np.zeros(8, np.uint8), (2**27, 8))"
HUGE_VECTORS = "np.broadcast_to(np.zeros(16, np.float32), (2**27, 8, 16))"
HUGE_CASES = {
    "token ids to model()": ("token", f"sinklab.load_model(sys.argv[1])({HUGE_TOKENS})", "inputs"),
    "token ids to run_with_cache": ("token", f"sinklab.load_model(sys.argv[1]).run_with_cache({HUGE_TOKENS})",
                                    "inputs"),
    "token ids to run_with_hooks": ("token", f"sinklab.load_model(sys.argv[1]).run_with_hooks({HUGE_TOKENS}, "
                                    "{'logits': lambda v, n: None})", "inputs"),
    "int64 token ids": ("token", "sinklab.load_model(sys.argv[1])(np.broadcast_to(np.zeros(8, np.int64), "
                        "(2**27, 8)))", "inputs"),
    "vectors to model()": ("tiny", f"sinklab.load_model(sys.argv[1])({HUGE_VECTORS})", "inputs"),
    "vectors to run_with_cache": ("tiny", f"sinklab.load_model(sys.argv[1]).run_with_cache({HUGE_VECTORS})",
                                  "inputs"),
    "a task batch of 2^31-1 samples": ("tiny", f"sinklab.task({str(TINY)!r}).batch(0, size=2**31 - 1)", "size"),
}


@pytest.mark.parametrize("case", HUGE_CASES)
def test_a_huge_array_is_refused_before_anything_is_allocated(case, tiny_run, token_run):
    which, call, argument = HUGE_CASES[case]
    out = run_isolated(REFUSED.format(call=call), token_run if which == "token" else tiny_run)
    assert out.startswith(f"ValueError: {argument}: "), out
    assert "needs an estimated" in out and "available" in out, out


def test_a_broadcast_array_of_a_sensible_size_still_runs(token_run):
    model = sinklab.load_model(token_run)
    ids = np.broadcast_to(np.arange(8, dtype=np.uint8), (3, 8))
    np.testing.assert_array_equal(model(ids), model(np.ascontiguousarray(ids)))


KEEPS_ITS_ARRAYS = """
import sys, numpy as np, sinklab
model = sinklab.load_model(sys.argv[1])
kept = []
def keep(value, name):  # keeps the array it is given, and a view of it, past the evaluation
    kept.append((value, value[:1], value.copy()))
model.evaluate(hooks={"blocks.0.attn.weights": keep})
junk = [np.full(10**6, 7.0) for _ in range(50)]  # reuses whatever memory the evaluation gave back
for value, view, copy in kept:
    assert np.array_equal(value, copy) and np.array_equal(view, copy[:1])
    value[...] = 0  # writing to it touches nothing of sinklab's
print(len(kept), "chunks kept")
"""


def test_an_evaluation_hook_may_keep_its_arrays(tiny_run):
    out = run_isolated(KEEPS_ITS_ARRAYS, tiny_run)
    assert out.endswith("chunks kept\n") and int(out.split()[0]) >= 1, out


def test_an_evaluation_hook_still_edits_the_activation_in_place(tiny_run):
    model = sinklab.load_model(tiny_run)

    def zero_bos(weights, name):
        weights[:, 0, :, 0] = 0.0

    def zero_bos_returned(weights, name):
        edited = weights.copy()
        edited[:, 0, :, 0] = 0.0
        return edited

    in_place = model.evaluate(hooks={"blocks.1.attn.weights": zero_bos})
    returned = model.evaluate(hooks={"blocks.1.attn.weights": zero_bos_returned})
    assert in_place["loss"] == returned["loss"] and in_place["heads"] == returned["heads"]
    assert in_place["heads"] != model.evaluate()["heads"]


def test_a_hook_may_run_another_model(tiny_run):
    model = sinklab.load_model(tiny_run)
    x = np.zeros((1, 4, 16), np.float32)
    other = sinklab.load_model(tiny_run)
    outputs = []
    model.run_with_hooks(x, {"blocks.0.attn.q": lambda v, n: outputs.append(other(x))})
    np.testing.assert_array_equal(outputs[0], model(x))
