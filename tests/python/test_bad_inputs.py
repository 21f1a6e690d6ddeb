"""Bad input to every entry point of the models API is a Python exception with a clear message, never a
crash of the interpreter: a list of named cases, then random arrays of random shapes and types."""
import math

import numpy as np
import pytest

import sinklab
from conftest import SOURCE_DIR

PAPER = SOURCE_DIR / "configs/paper/1x1_softmax.yaml"


@pytest.fixture(scope="module")
def model(tiny_run):
    return sinklab.load_model(tiny_run)


@pytest.fixture(scope="module")
def tokens(token_run):
    return sinklab.load_model(token_run)


def junk_file(tmp_path, name, content):
    path = tmp_path / name
    path.write_bytes(content)
    return path


LOADS = [
    ("no such folder", lambda tmp, run: sinklab.load_model(tmp / "nothing"), sinklab.Error, "nothing"),
    ("a folder without a run", lambda tmp, run: sinklab.load_model(tmp), sinklab.Error, "config.yaml"),
    ("junk as a checkpoint", lambda tmp, run: sinklab.load_model(
        junk_file(run, "junk.bin", b"not a checkpoint")), sinklab.CheckpointError, "junk.bin"),
    ("an integer path", lambda tmp, run: sinklab.load_model(3), TypeError, "run folder"),
    ("None", lambda tmp, run: sinklab.load_model(None), TypeError, "run folder"),
    ("missing config", lambda tmp, run: sinklab.build_model(tmp / "x.yaml"), sinklab.ConfigError, "x.yaml"),
    ("unknown key", lambda tmp, run: sinklab.build_model(PAPER, ["model.headz=2"]), sinklab.ConfigError, "headz"),
    ("mistyped value", lambda tmp, run: sinklab.build_model(PAPER, ["model.heads=two"]), sinklab.ConfigError,
     "model.heads"),
    ("override without =", lambda tmp, run: sinklab.build_model(PAPER, ["model.heads"]), ValueError,
     "key=value"),
    ("overrides as one string", lambda tmp, run: sinklab.build_model(PAPER, "seed=1"), TypeError, "overrides"),
    ("overrides with a number", lambda tmp, run: sinklab.build_model(PAPER, [3]), ValueError, "overrides"),
    ("construct kind", lambda tmp, run: sinklab.construct(PAPER, "tanh"), ValueError, "kind"),
    ("construct beta < 0", lambda tmp, run: sinklab.construct(PAPER, "softmax", beta=-1), ValueError, "beta"),
    ("construct beta nan", lambda tmp, run: sinklab.construct(PAPER, "softmax", beta=math.nan), ValueError, "beta"),
    ("construct on relu config", lambda tmp, run: sinklab.construct(
        SOURCE_DIR / "configs/paper/1x1_relu.yaml", "softmax"), ValueError, "normalizer"),
    ("construct on a block model", lambda tmp, run: sinklab.construct(
        SOURCE_DIR / "configs/examples/tiny_block.yaml", "softmax"), ValueError, "model."),
    ("config with a bad line", lambda tmp, run: sinklab.load_config(
        junk_file(tmp, "bad.yaml", b"model:\n  heads: [1\n")), sinklab.ConfigError, "bad.yaml"),
    ("run config.yaml with a bad line", lambda tmp, run: sinklab._sinklab.read_run_config(
        str(junk_file(tmp, "config.yaml", b"a: [1"))), sinklab.ConfigError, "config.yaml"),
]


@pytest.mark.parametrize("case", LOADS, ids=[c[0] for c in LOADS])
def test_loading_and_building(case, tmp_path, tiny_run):
    _, call, error, words = case
    with pytest.raises(error, match=words):
        call(tmp_path, tiny_run)


def test_a_config_error_says_where(tmp_path):
    bad = junk_file(tmp_path, "where.yaml", PAPER.read_bytes().replace(b"heads: 1", b"headz: 1"))
    with pytest.raises(sinklab.ConfigError) as e:
        sinklab.load_config(bad)
    assert e.value.key == "model.headz" and e.value.line > 0 and str(bad) in str(e.value)


X = np.zeros((2, 16, 16), np.float32)
PASSES = [
    ("strings", lambda m: m(np.full((1, 2, 16), "a")), TypeError, "dtype"),
    ("objects", lambda m: m(np.empty((1, 2, 16), dtype=object)), TypeError, "dtype"),
    ("a list, not an array", lambda m: m([[1.0] * 16]), ValueError, "dimension"),
    ("one dimension", lambda m: m(np.zeros(16, np.float32)), ValueError, "dimension"),
    ("four dimensions", lambda m: m(np.zeros((1, 1, 16, 16), np.float32)), ValueError, "dimension"),
    ("no samples", lambda m: m(np.zeros((0, 16, 16), np.float32)), ValueError, "at least one"),
    ("no positions", lambda m: m(np.zeros((1, 0, 16), np.float32)), ValueError, "at least one"),
    ("too long", lambda m: m(np.zeros((1, 99, 16), np.float32)), ValueError, "99 positions"),
    ("too wide", lambda m: m(np.zeros((1, 4, 17), np.float32)), ValueError, "width 17"),
    ("complex", lambda m: m(np.zeros((1, 4, 16), np.complex64)), TypeError, "dtype"),
    ("bad ablation", lambda m: m(X, ablate="mask"), ValueError, "mask"),
    ("ablation of no head", lambda m: m(X, ablate="zero_bos_weight", heads="L0"), ValueError, "L0"),
    ("a head twice", lambda m: m(X, ablate="zero_bos_weight", heads="L0H0,L0H0"), ValueError, "L0H0"),
    ("heads without ablation", lambda m: m(X, heads="L0H0"), ValueError, "none"),
    ("hooks not a dict", lambda m: m.run_with_hooks(X, 3), TypeError, "hooks"),
    ("hook name not a string", lambda m: m.run_with_hooks(X, {1: print}), TypeError, "name"),
    ("hook entry not a pair", lambda m: m.run_with_hooks(X, [("logits",)]), TypeError, "pair"),
    ("unknown hook", lambda m: m.run_with_hooks(X, {"blocks.9.attn.q": print}), ValueError, "blocks.9"),
    ("virtual mass is not hookable", lambda m: m.run_with_hooks(X, {"blocks.0.attn.virtual_mass": print}),
     ValueError, "virtual_mass"),
    ("hook not callable", lambda m: m.run_with_hooks(X, {"logits": "zero"}), TypeError, "callable"),
    ("hook raises", lambda m: m.run_with_hooks(X, {"blocks.0.attn.q": lambda v, n: [][1]}), IndexError, "range"),
    ("hook returns a string", lambda m: m.run_with_hooks(X, {"logits": lambda v, n: "x"}), ValueError, "returned"),
    ("hook returns a wrong shape", lambda m: m.run_with_hooks(X, {"logits": lambda v, n: v[0]}), ValueError,
     "shape"),
    ("hook with one argument", lambda m: m.run_with_hooks(X, {"logits": lambda v: None}), TypeError, "argument"),
    ("unknown cache name", lambda m: m.run_with_cache(X, names=["nope"]), KeyError, "nope"),
    ("cache key", lambda m: m.run_with_cache(X)[1]["nope"], KeyError, "nope"),
    ("cache key of a wrong type", lambda m: m.run_with_cache(X)[1][3], TypeError, ""),
    ("evaluate no samples", lambda m: m.evaluate(samples=0), ValueError, "samples"),
    ("evaluate too many samples", lambda m: m.evaluate(samples=10**9), ValueError, "samples"),
    ("evaluate samples as text", lambda m: m.evaluate(samples="ten"), TypeError, ""),
    ("evaluate unknown hook", lambda m: m.evaluate(hooks={"x": print}), ValueError, "'x'"),
    ("evaluate bad ablation", lambda m: m.evaluate(ablate="all"), ValueError, "all"),
]


@pytest.mark.parametrize("case", PASSES, ids=[c[0] for c in PASSES])
def test_passes(case, model):
    _, call, error, words = case
    reference = model(X).copy()
    with pytest.raises(error, match=words):
        call(model)
    np.testing.assert_array_equal(model(X), reference)  # nothing left behind


TOKEN_PASSES = [
    ("negative id", lambda m: m(np.array([[0, -1]])), ValueError, "-1"),
    ("id past the vocabulary", lambda m: m(np.array([[0, 64]])), ValueError, "64"),
    ("float ids", lambda m: m(np.zeros((1, 3), np.float32)), TypeError, "integers"),
    ("vectors to a token model", lambda m: m(np.zeros((1, 3, 8), np.int32)), ValueError, "token ids"),
    ("huge ids", lambda m: m(np.array([[2**40]])), ValueError, "outside"),
]


@pytest.mark.parametrize("case", TOKEN_PASSES, ids=[c[0] for c in TOKEN_PASSES])
def test_token_passes(case, tokens):
    _, call, error, words = case
    with pytest.raises(error, match=words):
        call(tokens)


def test_random_arrays_never_crash(model, tokens):
    """200 arrays of random rank, shape, dtype and values: each runs or raises TypeError/ValueError."""
    rng = np.random.default_rng(20261203)
    dtypes = [np.float32, np.float64, np.float16, np.int8, np.int32, np.int64, np.uint8, np.bool_, np.complex64]
    outcomes = {"ran": 0, "refused": 0}
    for _ in range(200):
        rank = int(rng.integers(0, 5))
        shape = tuple(int(rng.integers(0, 20)) for _ in range(rank))
        dtype = dtypes[int(rng.integers(len(dtypes)))]
        values = rng.normal(0, 1e3, size=shape)
        if rng.random() < 0.2:
            values[...] = np.nan
        with np.errstate(invalid="ignore"):  # NaN cast to an integer type: any value will do
            array = values.astype(dtype)
        for m in (model, tokens):
            try:
                out = m(array)
                assert out.shape[:2] == array.shape[:2]
                outcomes["ran"] += 1
            except (TypeError, ValueError):
                outcomes["refused"] += 1
    assert outcomes["ran"] > 0 and outcomes["refused"] > 0, outcomes
