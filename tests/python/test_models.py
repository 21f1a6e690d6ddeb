"""Models from Python (python/bindings/models.cpp, python/sinklab/models.py): parameters and caches are
views, not copies; a cache and hooks see the pass the C++ evaluation runs, bit for bit; hooks edit it."""
import math

import numpy as np
import pytest

import sinklab
from conftest import eval_json
from sinklab import hooks


def same_metrics(ours, cli):
    """The metrics `sinklab eval` writes equal the binding's, exactly."""
    for key, cli_key in (("mse", "eval_mse"), ("max_abs_error", "eval_max_abs_error"),
                         ("no_op_max_abs_error", "nontrigger_max_abs_error"),
                         ("active_max_abs_error", "trigger_max_abs_error"), ("row_max_abs_error", "row_max_abs_error")):
        assert ours[key] == cli[cli_key], f"{key}: {ours[key]} vs {cli[cli_key]}"


def same_heads(ours, cli):
    assert len(ours) == len(cli)
    for a, b in zip(ours, cli):
        for key, value in a.items():
            if key in b and isinstance(value, float) and not math.isnan(value):
                assert value == b[key], f"L{a['layer']}H{a['head']}.{key}: {value} vs {b[key]}"


def data_pointer(a):
    return a.__array_interface__["data"][0]


def test_parameters_are_writable_views_of_the_models_own_storage(tiny_run):
    model = sinklab.load_model(tiny_run)
    params = model.parameters()
    w = params["blocks.0.attn.w_q.weight"]
    assert w.shape == (32, 32) and not w.flags.owndata
    assert data_pointer(model.parameters()["blocks.0.attn.w_q.weight"]) == data_pointer(w)
    x = np.random.default_rng(0).standard_normal((2, 16, 16)).astype(np.float32)
    before = model(x).copy()
    w *= 0.5
    assert model.parameters()["blocks.0.attn.w_q.weight"][0, 0] == w[0, 0]
    assert not np.array_equal(model(x), before), "writing a parameter view must change the model"


def test_a_caches_arrays_are_views_into_the_pass_in_the_documented_layout(tiny_run):
    model = sinklab.load_model(tiny_run)
    x = np.random.default_rng(1).standard_normal((3, 16, 16)).astype(np.float32)
    logits, cache = model.run_with_cache(x)
    assert logits.shape == (3, 16, 16)
    assert list(cache.keys()) == [n for n in cache]
    q = cache["blocks.1.attn.q"]
    assert q.shape == (3, 16, 4, 8) and not q.flags.owndata and not q.flags.c_contiguous, "a head-major view"
    assert data_pointer(cache["blocks.1.attn.q"]) == data_pointer(q)
    w = cache["blocks.0.attn.weights"]
    assert w.shape == (3, 4, 16, 16)
    np.testing.assert_allclose(w.sum(axis=-1), 1.0, rtol=1e-5)
    assert np.all(np.triu(w[0, 0], k=1) == 0), "causal"
    assert cache["blocks.0.attn.virtual_mass"].shape == (3, 4, 16)
    for name in ("blocks.0.resid_pre", "blocks.0.ln1.out", "blocks.0.attn.out", "blocks.0.resid_mid",
                 "blocks.0.mlp.out", "blocks.1.resid_post", "final_norm.out", "logits"):
        assert name in cache, name
    # The residual stream adds up: resid_post = resid_mid + mlp.out (float32 addition, exactly).
    np.testing.assert_array_equal(cache["blocks.0.resid_post"], cache["blocks.0.resid_mid"] + cache["blocks.0.mlp.out"])
    # The weights are softmax of the scores on the causal rows.
    s = cache["blocks.1.attn.scores"][2, 3].astype(np.float64)
    row = 9
    p = np.exp(s[row, :row + 1] - s[row, :row + 1].max())
    np.testing.assert_allclose(cache["blocks.1.attn.weights"][2, 3, row, :row + 1], p / p.sum(), rtol=1e-5)
    assert model.activation_names() == [n for n in cache.keys()]


def test_a_cache_outlives_later_passes(tiny_run):
    model = sinklab.load_model(tiny_run)
    rng = np.random.default_rng(2)
    _, first = model.run_with_cache(rng.standard_normal((2, 16, 16)).astype(np.float32))
    kept = first["blocks.0.attn.weights"].copy()
    for _ in range(3):
        model.run_with_cache(rng.standard_normal((2, 16, 16)).astype(np.float32))
    np.testing.assert_array_equal(first["blocks.0.attn.weights"], kept)


def test_evaluation_equals_sinklab_eval_and_a_hook_that_does_nothing_changes_no_bit(tiny_run):
    model = sinklab.load_model(tiny_run)
    plain = model.evaluate()
    cli = eval_json(tiny_run)
    same_metrics(plain, cli)
    same_heads(plain["heads"], cli["heads"])
    names = model.activation_names()
    noop = [(name, lambda value, name: None) for name in names if not name.endswith("virtual_mass")]
    assert model.evaluate(hooks=noop) == plain


def test_run_with_cache_gives_the_c_evaluations_logits_bit_for_bit(paper_run):
    model = sinklab.load_model(paper_run)
    seen = {}

    def keep(name):
        def hook(value, _name):
            seen.setdefault(name, value.copy())  # the first evaluation chunk
        return hook
    model.evaluate(hooks={"blocks.0.resid_pre": keep("inputs"), "logits": keep("logits")})
    inputs = seen["inputs"]
    assert inputs.shape == (250, 16, 16)
    logits, cache = model.run_with_cache(inputs)
    np.testing.assert_array_equal(logits, seen["logits"])
    np.testing.assert_array_equal(model(inputs), seen["logits"])


@pytest.mark.parametrize("head", ["L0H0", "L1H3"])
def test_a_hook_zeroing_the_bos_weight_equals_sinklab_eval_ablate_zero_bos_weight(tiny_run, head):
    model = sinklab.load_model(tiny_run)
    layer, h = int(head[1]), int(head[3])
    hooked = model.evaluate(hooks=[hooks.zero_bos_weight(layer, h)])
    cli = eval_json(tiny_run, "--ablate", "zero_bos_weight", "--heads", head)
    same_metrics(hooked, cli)
    same_heads(hooked["heads"], cli["heads"])
    assert hooked != model.evaluate(), "the ablation must change something, or the comparison proves nothing"
    assert model.evaluate(ablate="zero_bos_weight", heads=head) == hooked


def test_mask_bos_key_is_available_as_a_built_in_ablation(tiny_run):
    model = sinklab.load_model(tiny_run)
    x = np.random.default_rng(3).standard_normal((2, 16, 16)).astype(np.float32)
    masked = model(x, ablate="mask_bos_key", heads="L1H2")
    assert not np.array_equal(masked, model(x))
    _, cache = model.run_with_cache(x, ablate="mask_bos_key", heads="L1H2")
    assert np.all(cache["blocks.1.attn.weights"][:, 2, 1:, 0] == 0)
    np.testing.assert_allclose(cache["blocks.1.attn.weights"][:, 2, 1:, :].sum(axis=-1), 1.0, rtol=1e-5)


def test_activation_patching_in_five_lines(tiny_run):
    model = sinklab.load_model(tiny_run)
    rng = np.random.default_rng(4)
    clean, corrupt = (rng.standard_normal((2, 16, 16)).astype(np.float32) for _ in range(2))
    clean_out, clean_cache = model.run_with_cache(clean)
    patched = model.run_with_hooks(corrupt, [hooks.patch(clean_cache, "blocks.1.resid_pre")])
    np.testing.assert_array_equal(patched, clean_out)
    one_head = model.run_with_hooks(corrupt, [hooks.patch(clean_cache, "blocks.1.attn.z", head=0)])
    assert not np.array_equal(one_head, clean_out) and not np.array_equal(one_head, model(corrupt))


def test_a_hook_may_return_a_replacement_and_zero_or_mean_ablate(tiny_run):
    model = sinklab.load_model(tiny_run)
    x = np.random.default_rng(5).standard_normal((2, 16, 16)).astype(np.float32)
    _, cache = model.run_with_cache(x)
    replaced = model.run_with_hooks(x, {"blocks.0.attn.out": lambda v, name: np.zeros_like(v)})
    zeroed = model.run_with_hooks(x, [hooks.zero("blocks.0.attn.out")])
    np.testing.assert_array_equal(replaced, zeroed)
    assert not np.array_equal(zeroed, model(x))
    mean = cache["blocks.0.attn.z"].mean(axis=0)
    ablated = model.run_with_hooks(x, [hooks.mean_ablate("blocks.0.attn.z", mean, head=1)])
    _, seen = model.run_with_cache(x)
    assert not np.array_equal(ablated, model(x))


def test_bad_hooks_and_inputs_raise_clear_errors_and_leave_the_model_usable(tiny_run):
    model = sinklab.load_model(tiny_run)
    x = np.zeros((1, 16, 16), np.float32)
    reference = model(x).copy()
    with pytest.raises(ValueError, match="blocks.0.attn.weight'"):
        model.run_with_hooks(x, {"blocks.0.attn.weight": lambda v, n: None})
    with pytest.raises(ValueError, match="returned an array of shape"):
        model.run_with_hooks(x, {"logits": lambda v, n: np.zeros(3)})
    with pytest.raises(ZeroDivisionError):
        model.run_with_hooks(x, {"blocks.1.attn.q": lambda v, n: 1 / 0})
    with pytest.raises(TypeError, match="not callable"):
        model.run_with_hooks(x, {"logits": 3})
    with pytest.raises(ValueError, match="width"):
        model(np.zeros((1, 16, 15), np.float32))
    with pytest.raises(ValueError, match="more than the model's 16"):
        model(np.zeros((1, 17, 16), np.float32))
    with pytest.raises(ValueError, match="L2H0 is not a head"):
        model(x, ablate="zero_bos_weight", heads="L2H0")
    np.testing.assert_array_equal(model(x), reference)  # no hook or ablation left behind


def test_token_models_take_ids(token_run):
    model = sinklab.load_model(token_run)
    assert model.reads_tokens
    ids = np.arange(64, dtype=np.int64).reshape(1, 64) % 64
    logits, cache = model.run_with_cache(ids)
    assert logits.shape == (1, 64, 64) and cache["blocks.1.attn.weights"].shape == (1, 2, 64, 64)
    with pytest.raises(ValueError, match="outside the vocabulary"):
        model(np.full((1, 4), 64))
    with pytest.raises(TypeError, match="integers"):
        model(np.zeros((1, 4), np.float32))


def test_fresh_and_constructed_models(tmp_path):
    from conftest import SOURCE_DIR
    fresh = sinklab.build_model(SOURCE_DIR / "configs/paper/1x1_softmax.yaml", ["seed=3"])
    again = sinklab.build_model(SOURCE_DIR / "configs/paper/1x1_softmax.yaml", ["seed=3"])
    for name, value in fresh.parameters().items():
        np.testing.assert_array_equal(value, again.parameters()[name])
    built = sinklab.construct(SOURCE_DIR / "configs/paper/1x1_softmax.yaml", "softmax", beta=20.0)
    metrics = built.evaluate(samples=100)
    assert metrics["max_abs_error"] < 1e-6 * 1e3  # the construction's error, 14 / (e^20 + 15)
    with pytest.raises(ValueError, match="kind must be"):
        sinklab.construct(SOURCE_DIR / "configs/paper/1x1_softmax.yaml", "sigmoid")


@pytest.mark.parametrize("gate, width", [("per_head", 1), ("elementwise", 16)])
def test_gated_attention_caches_its_gate_and_the_virtual_mass_it_implies(gate, width):
    from conftest import SOURCE_DIR
    model = sinklab.build_model(SOURCE_DIR / "configs/paper/1x1_softmax.yaml",
                                ["model.attention.normalizer.name=gated_softmax", f"model.attention.normalizer.gate={gate}"])
    x = np.random.default_rng(6).standard_normal((2, 16, 16)).astype(np.float32)
    _, cache = model.run_with_cache(x)
    g = cache["blocks.0.attn.gate"]
    assert g.shape == (2, 16, 1, width) and np.all((g > 0) & (g < 1))
    # softmax rows send no mass away, so what the gate closes is the whole virtual mass: 1 - mean gate.
    np.testing.assert_allclose(cache["blocks.0.attn.virtual_mass"][:, 0, :], 1 - g[:, :, 0, :].mean(axis=-1), rtol=1e-6)
    closed = model.run_with_hooks(x, [hooks.zero("blocks.0.attn.gate")])
    np.testing.assert_array_equal(closed, np.zeros_like(closed))  # no residual, no bias: a closed gate outputs 0
