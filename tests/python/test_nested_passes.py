"""Hooks belong to a pass (docs/python.md, "run_with_hooks"): a hook that runs the model again starts a nested
pass with its own hooks, cache and observers, and the outer pass goes on with all of its own afterwards."""
import numpy as np
import pytest

import sinklab


@pytest.fixture(scope="module")
def model(tiny_run):
    return sinklab.load_model(tiny_run)


@pytest.fixture(scope="module")
def x(model):
    return np.random.default_rng(7).normal(size=(3, 6, model.input_dim)).astype(np.float32)


def zeros(v, _name):
    return np.zeros_like(v)


def test_a_hook_that_runs_the_model_leaves_the_later_hooks_of_its_pass_in_place(model, x):
    inner = []
    out = model.run_with_hooks(x, [("blocks.0.attn.weights", lambda v, n: inner.append(model(x))),
                                   ("blocks.1.attn.weights", zeros)])
    np.testing.assert_array_equal(out, model.run_with_hooks(x, [("blocks.1.attn.weights", zeros)]))
    assert not np.array_equal(out, model(x))
    np.testing.assert_array_equal(inner[0], model(x))  # the nested pass ran without the outer hooks


def test_a_nested_pass_keeps_its_own_hooks_and_the_outer_pass_its_own(model, x):
    inner = []

    def nested(v, n):
        inner.append(model.run_with_hooks(x, [("blocks.1.attn.weights", zeros)]))

    out = model.run_with_hooks(x, [("blocks.0.attn.q", nested), ("logits", lambda v, n: 2 * v)])
    np.testing.assert_array_equal(out, 2 * model(x))
    np.testing.assert_array_equal(inner[0], model.run_with_hooks(x, [("blocks.1.attn.weights", zeros)]))


def test_run_with_cache_keeps_every_activation_when_a_hook_runs_the_model(model, x):
    _, plain = model.run_with_cache(x)
    nested_caches = []
    out, cache = model._native.run(x, model._hooks([("blocks.0.attn.weights",
                                                     lambda v, n: nested_caches.append(model.run_with_cache(x)))]),
                                   True, "none", "all")
    assert list(cache.keys()) == list(plain.keys())
    for name in plain.keys():
        np.testing.assert_array_equal(cache[name], plain[name], err_msg=name)
    inner_out, inner_cache = nested_caches[0]
    assert list(inner_cache.keys()) == list(plain.keys())
    np.testing.assert_array_equal(inner_cache["logits"], plain["logits"])
    np.testing.assert_array_equal(out, model(x))


def test_evaluate_inside_a_hook_and_a_pass_inside_evaluate_change_nothing(model, x):
    alone = model.evaluate(samples=8)
    seen = []
    out = model.run_with_hooks(x, {"blocks.1.attn.z": lambda v, n: seen.append(model.evaluate(samples=8))})
    assert seen[0] == alone
    np.testing.assert_array_equal(out, model(x))
    # The nested passes must not feed the evaluation's own sink statistics.
    nested = model.evaluate(samples=8, hooks={"blocks.0.attn.weights": lambda v, n: model.run_with_cache(x) and None})
    assert nested == alone


def test_an_error_in_a_nested_pass_leaves_the_model_without_hooks(model, x):
    def failing(v, n):
        model.run_with_hooks(x, {"blocks.0.attn.q": lambda v2, n2: 1 / 0})

    with pytest.raises(ZeroDivisionError):
        model.run_with_hooks(x, [("blocks.0.attn.weights", failing), ("blocks.1.attn.weights", zeros)])
    np.testing.assert_array_equal(model(x), model.run_with_hooks(x, {}))
    _, cache = model.run_with_cache(x)
    assert "logits" in cache


def test_an_in_place_hook_may_return_its_own_array(model, x):
    def in_place_returned(weights, name):
        weights[:, 0, :, 0] = 0.0
        return weights

    def in_place(weights, name):
        weights[:, 0, :, 0] = 0.0

    np.testing.assert_array_equal(model.run_with_hooks(x, {"blocks.1.attn.weights": in_place_returned}),
                                  model.run_with_hooks(x, {"blocks.1.attn.weights": in_place}))
    returned = model.evaluate(samples=8, hooks={"blocks.1.attn.weights": in_place_returned})
    assert returned == model.evaluate(samples=8, hooks={"blocks.1.attn.weights": in_place})
    assert returned["heads"] != model.evaluate(samples=8)["heads"]


def test_threads_whose_hooks_release_the_interpreter_lock_keep_their_own_hooks(model, x):
    """time.sleep in a hook lets another thread's pass of the same model start mid-pass: it must wait."""
    import threading
    import time

    def sleepy_zeros(v, n):
        time.sleep(0.002)
        return np.zeros_like(v)

    def sleepy_double(v, n):
        time.sleep(0.002)
        return 2 * v

    plans = {"zeros": [("blocks.0.attn.weights", sleepy_zeros), ("blocks.1.attn.weights", sleepy_zeros)],
             "double": [("blocks.0.attn.q", sleepy_double), ("logits", sleepy_double)]}
    solo = {name: model.run_with_hooks(x, hooks) for name, hooks in plans.items()}
    results, errors = {name: [] for name in plans}, []

    def worker(name):
        try:
            for _ in range(15):
                results[name].append(model.run_with_hooks(x, plans[name]))
        except Exception as error:  # reported below, with the thread's name
            errors.append(f"{name}: {error!r}")

    threads = [threading.Thread(target=worker, args=(name,)) for name in plans for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert not errors
    for name, outputs in results.items():
        assert len(outputs) == 30
        for out in outputs:
            np.testing.assert_array_equal(out, solo[name], err_msg=name)
