"""sinklab.task: a config's task as NumPy batches, and its fixed evaluation set as training evaluates on it."""
import numpy as np
import pytest

import sinklab
from sinklab.training import POSITION_ROLES, task
from conftest import SOURCE_DIR

TINY = SOURCE_DIR / "configs/examples/tiny_block.yaml"  # trigger_conditional: vectors in, mse
COPY = SOURCE_DIR / "configs/tasks/copy.yaml"  # copy: tokens in, cross-entropy


def test_shape_of_a_vector_task():
    t = task(TINY)
    assert t.name == "trigger_conditional"
    assert t.shape == {"input": "vectors", "seq_len": 16, "input_dim": 16, "output_dim": 16, "loss": "mse"}


def test_shape_of_a_token_task_follows_the_overrides():
    t = task(COPY, overrides={"task.seq_len": 12})
    assert t.name == "copy"
    assert t.shape == {"input": "tokens", "seq_len": 12, "input_dim": 16, "output_dim": 16, "loss": "cross_entropy"}


def test_a_vector_batch_holds_the_arrays_its_shape_uses():
    b = task(TINY).batch(seed=1, size=5)
    assert set(b) == {"inputs", "targets", "roles"}
    assert b["inputs"].shape == (5, 16, 16) and b["inputs"].dtype == np.float32
    assert b["targets"].shape == (5, 16, 16) and b["targets"].dtype == np.float32
    assert b["roles"].shape == (5, 16) and b["roles"].dtype == np.uint8
    assert np.all(np.isfinite(b["inputs"])) and np.any(b["inputs"] != 0)


def test_a_token_batch_holds_ids():
    b = task(COPY).batch(seed=1, size=3)
    assert set(b) == {"input_ids", "target_ids", "roles"}
    assert b["input_ids"].shape == (3, 16) and b["input_ids"].dtype == np.int32
    assert b["target_ids"].dtype == np.int32
    assert b["input_ids"].min() >= 0 and b["input_ids"].max() < 16
    # The copy task (data/copy_task.h): BOS (id 0) first; position i > offset (4) targets the id at i - 4,
    # positions 0..4 have nothing to copy (-1).
    assert np.all(b["input_ids"][:, 0] == 0)
    np.testing.assert_array_equal(b["target_ids"][:, 5:], b["input_ids"][:, 1:-4])
    assert np.all(b["target_ids"][:, :5] == -1)


def test_size_defaults_to_the_configs_batch_size():
    assert task(TINY).batch(seed=0)["inputs"].shape[0] == 128
    assert task(TINY, overrides=["train.batch_size=7"]).batch(seed=0)["inputs"].shape[0] == 7


def test_batches_are_deterministic_per_seed():
    t = task(TINY)
    a, b, c = t.batch(seed=9, size=4), t.batch(seed=9, size=4), t.batch(seed=10, size=4)
    for key in a:
        np.testing.assert_array_equal(a[key], b[key])
    assert not np.array_equal(a["inputs"], c["inputs"])
    # Samples are drawn one after another: a larger batch starts with the smaller one.
    np.testing.assert_array_equal(t.batch(seed=9, size=8)["inputs"][:4], a["inputs"])


def test_roles_mark_the_sink_key_and_the_trigger_row():
    assert POSITION_ROLES == {"sink_key": 1, "no_op_row": 2, "active_row": 4}
    roles = task(TINY).batch(seed=2, size=6)["roles"]
    assert np.all(roles[:, 0] & POSITION_ROLES["sink_key"])  # BOS
    assert np.all(((roles & POSITION_ROLES["active_row"]) != 0).sum(axis=1) == 1)  # one trigger per sample


def test_eval_batch_is_the_fixed_evaluation_set():
    config = sinklab.load_config(str(TINY))
    t = task(TINY)
    e = t.eval_batch()
    samples, seed = config["task"]["eval_samples"], config["task"]["eval_seed"]
    assert e["inputs"].shape == (samples, 16, 16)
    drawn = t.batch(seed=seed, size=samples, split="eval")
    for key in e:
        np.testing.assert_array_equal(e[key], drawn[key])
    # The evaluation's fixed trigger (task.eval_trigger: 7) is every sample's active row.
    assert np.all(e["roles"][:, 7] & POSITION_ROLES["active_row"])
    # Different from training draws of the same seed (random trigger positions).
    assert not np.array_equal(t.batch(seed=seed, size=samples)["roles"], e["roles"])


def test_eval_batch_has_the_evaluation_length():
    e = task(TINY, overrides={"task.eval_seq_len": 24, "task.eval_samples": 10,
                              "analysis.eval_attention_samples": 10}).eval_batch()
    assert e["inputs"].shape == (10, 24, 16)
    assert e["roles"].shape == (10, 24)


def test_a_dict_config_gives_the_same_task():
    config = sinklab.load_config(str(COPY))
    a, b = task(config).batch(seed=4, size=3), task(COPY).batch(seed=4, size=3)
    for key in a:
        np.testing.assert_array_equal(a[key], b[key])
