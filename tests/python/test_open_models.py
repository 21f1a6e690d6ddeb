"""Open checkpoints from Python (docs/open-models.md): sinklab.load_model on a Hugging Face folder gives the
same Model class as a run, its logits and attention match the PyTorch twin's fixture
(tests/fixtures/open_models/, tools/open_models_twin.py) within 1e-5, and TransformerLens habits work:
hook_* names, cache["pattern", 0], run_with_hooks(x, fwd_hooks=[...]) with hook.name, names_filter, and a
did-you-mean on an unknown name."""
import sys

import numpy as np
import pytest

import sinklab
from conftest import SOURCE_DIR

sys.path.insert(0, str(SOURCE_DIR / "tools"))
from golden_format import read_golden  # noqa: E402  (the one reader of the fixtures' format)

FIXTURES = SOURCE_DIR / "tests/fixtures/open_models"
FAMILIES = ["gpt_neox", "gpt_neox_sequential", "llama", "llama3", "mistral", "qwen2", "qwen3", "opt"]


def relative_error(got, want):
    return float(np.max(np.abs(got - want)) / np.max(np.abs(want)))


@pytest.mark.parametrize("family", FAMILIES)
def test_logits_and_attention_match_the_twin(family):
    folder = FIXTURES / family
    model = sinklab.load_model(folder)
    assert isinstance(model, sinklab.Model) and model.reads_tokens and model.family
    ids = np.load(folder / "ids.npy")
    expected = read_golden(str(folder / "expected.bin"))
    logits, cache = model.run_with_cache(ids)
    assert relative_error(logits, expected["logits"]) <= 1e-5
    assert np.array_equal(model(ids), logits), "a pass without a cache runs block by block, with the same bits"
    for layer in range(model.layers):
        assert relative_error(cache["pattern", layer], expected[f"probs.layer{layer}"]) <= 1e-5
        assert relative_error(cache[f"blocks.{layer}.hook_resid_post"], expected[f"resid_post.layer{layer}"]) <= 1e-5


def test_parameters_are_views_of_the_checkpoint():
    model = sinklab.load_model(FIXTURES / "llama")
    params = model.parameters()
    assert params["blocks.0.attn.w_k.weight"].shape == (2 * 8, 32)  # 2 key/value heads of 8
    assert "blocks.0.mlp.up.weight" in params


def test_transformer_lens_habits():
    model = sinklab.load_model(FIXTURES / "llama")
    ids = np.load(FIXTURES / "llama" / "ids.npy")
    _, cache = model.run_with_cache(ids)
    assert np.array_equal(cache["pattern", 0], cache["blocks.0.attn.weights"])
    assert np.array_equal(cache["pattern", -1], cache[f"blocks.{model.layers - 1}.attn.weights"])
    assert np.array_equal(cache["blocks.1.attn.hook_z"], cache["z", 1])
    assert "blocks.0.hook_resid_pre" in cache and ("pattern", 0) in cache and "blocks.0.hook_nothing" not in cache
    with pytest.raises(KeyError, match="did you mean 'blocks.0.attn.weights'"):
        cache["blocks.0.attn.weight"]
    with pytest.raises(KeyError, match="did you mean 'pattern'"):
        cache["patern", 0]

    seen = []

    def zero_bos(pattern, hook):
        seen.append(hook.name)
        pattern[:, :, 1:, 0] = 0.0

    clean = model(ids)
    patched = model.run_with_hooks(ids, fwd_hooks=[("blocks.0.attn.hook_pattern", zero_bos)])
    assert seen == ["blocks.0.attn.weights"]
    assert not np.allclose(clean, patched)
    # The same hook under sinklab's name and as a dict gives the same bits.
    again = model.run_with_hooks(ids, {"blocks.0.attn.weights": zero_bos})
    assert np.array_equal(patched, again)
    with pytest.raises(ValueError, match="did you mean"):
        model.run_with_hooks(ids, fwd_hooks=[("blocks.0.attn.hook_patern", zero_bos)])

    _, some = model.run_with_cache(ids, names_filter=lambda name: name.endswith("attn.weights"))
    assert sorted(some) == ["blocks.0.attn.weights", "blocks.1.attn.weights"]
    _, named = model.run_with_cache(ids, names=["blocks.0.attn.hook_pattern"])
    assert list(named) == ["blocks.0.attn.weights"]


def test_errors_name_the_file(tmp_path):
    with pytest.raises(sinklab.FileError):
        sinklab.load_model(tmp_path / "missing")
    folder = tmp_path / "model"
    folder.mkdir()
    (folder / "config.json").write_text('{"model_type": "llamaa"}')
    with pytest.raises(sinklab.RunFileError, match="did you mean 'llama'"):
        sinklab.load_model(folder)
    model = sinklab.load_model(FIXTURES / "gpt_neox")
    with pytest.raises(ValueError, match="no task"):
        model.evaluate()
