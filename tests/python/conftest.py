"""Shared fixtures of the Python package's tests: where the build and the sources are, and small runs."""
import os
import pathlib
import subprocess

import pytest

SOURCE_DIR = pathlib.Path(os.environ.get("SINKLAB_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
BINARY_DIR = pathlib.Path(os.environ.get("SINKLAB_BINARY_DIR", SOURCE_DIR / "build"))
SINKLAB = BINARY_DIR / "sinklab"
# The token cache (data/token_cache.h) of the runs here and of their sinklab commands: the build tree's, never
# the user's ~/.cache (ctest sets the same folder).
os.environ.setdefault("SINKLAB_CACHE_DIR", str(BINARY_DIR / "test_cache"))


def as_dict(table):
    """A table in either form (pandas DataFrame, or dict of NumPy arrays) as {column: NumPy array}."""
    if isinstance(table, dict):
        return table
    return {name: table[name].to_numpy() for name in table.columns}


def run_cli(*args, cwd=None):
    """Runs the sinklab binary; fails the test with its stderr when it fails."""
    done = subprocess.run([str(SINKLAB), *map(str, args)], cwd=cwd, capture_output=True, text=True)
    assert done.returncode == 0, f"sinklab {' '.join(map(str, args))} failed:\n{done.stderr}"
    return done


@pytest.fixture(scope="session")
def tiny_run(tmp_path_factory):
    """A finished run folder written by the CLI: a 2-layer, 4-head pre-norm block model (MLP, biases,
    input projection, output head) trained for 40 steps on the trigger task."""
    out = tmp_path_factory.mktemp("runs") / "tiny_block"
    run_cli("train", SOURCE_DIR / "configs/examples/tiny_block.yaml", "--out", out, "--quiet", "--threads", "1",
            "--set", "train.max_steps=40", "--set", "train.log_every=10", "--set", "train.eval_every=20")
    return out


@pytest.fixture(scope="session")
def paper_run(tmp_path_factory):
    """A finished 1x1 softmax run of the paper's task (no input projection: blocks.0.resid_pre is the input)."""
    out = tmp_path_factory.mktemp("runs") / "1x1_softmax"
    run_cli("train", SOURCE_DIR / "configs/paper/1x1_softmax.yaml", "--out", out, "--quiet",
            "--set", "train.max_steps=300", "--set", "train.log_every=50")
    return out


@pytest.fixture(scope="session")
def token_run(tmp_path_factory):
    """A finished character language model run (token inputs, rope, 2 layers x 2 heads)."""
    out = tmp_path_factory.mktemp("runs") / "ci_tiny"
    run_cli("train", SOURCE_DIR / "configs/normlimits/ci_tiny.yaml", "--out", out, "--quiet",
            "--set", "train.max_steps=20", cwd=SOURCE_DIR)
    return out


def eval_json(run, *flags):
    """`sinklab eval RUN FLAGS...` as the dict it writes."""
    import json
    out = pathlib.Path(run).parent / f"eval-{abs(hash(flags))}.json"
    run_cli("eval", run, *flags, "--out", out)
    return json.loads(out.read_text())
