"""sinklab.tokenizer: the C++ tokenizers from Python, on the committed fixtures (tests/fixtures/tokenizers,
made by tools/tokenizer_fixtures): the reference ids for every family and text, decoding, the special ids,
and TokenizerError for every broken input."""

import base64
import gzip
import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest

import sinklab

FIXTURES = Path(os.environ.get("SINKLAB_SOURCE_DIR", Path(__file__).resolve().parents[2])) / "tests/fixtures/tokenizers"
FAMILIES = ["gpt2", "neox", "llama2", "mistral", "llama3", "qwen3"]


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    """Each family as a model folder: tokenizer.json (decompressed) and tokenizer_config.json."""
    root = tmp_path_factory.mktemp("tokenizers")
    out = {}
    for family in FAMILIES:
        folder = root / family
        folder.mkdir()
        (folder / "tokenizer.json").write_bytes(gzip.decompress((FIXTURES / family / "tokenizer.json.gz").read_bytes()))
        shutil.copy(FIXTURES / family / "tokenizer_config.json", folder / "tokenizer_config.json")
        out[family] = folder
    return out


@pytest.fixture(scope="module")
def texts():
    return {t["name"]: base64.b64decode(t["base64"]) for t in json.loads((FIXTURES / "texts.json").read_text())}


@pytest.mark.parametrize("family", FAMILIES)
def test_ids_and_decoding_match_the_reference(folders, texts, family):
    tok = sinklab.tokenizer(folders[family])
    expected = json.loads((FIXTURES / f"expected_{family}.json").read_text())
    for case in expected["cases"]:
        raw = base64.b64decode(expected["added_tokens_text"]) if case["text"] == "added_tokens" else texts[case["text"]]
        assert tok.encode(raw) == case["ids"], case["text"]
        # A str gives the same ids as its UTF-8 bytes (invalid bytes read as U+FFFD, as the reference reads them).
        assert tok.encode(raw.decode("utf-8", errors="replace"), add_special_tokens=False) == case["ids_no_special"], case["text"]
        assert tok.decode(case["ids_no_special"]) == case["decoded"], case["text"]
        assert tok.decode(np.array(case["ids"], dtype=np.int64), skip_special_tokens=True) == case["decoded_skip_special"]


def test_special_ids_sizes_and_lookups(folders):
    gpt2 = sinklab.tokenizer(folders["gpt2"] / "tokenizer.json")
    assert (gpt2.vocab_size, gpt2.bos_id, gpt2.eos_id) == (50257, 50256, 50256)
    assert gpt2.token_to_id("<|endoftext|>") == 50256 and gpt2.token_to_id("no such token") is None
    assert gpt2.id_to_token(262) == "Ġthe"
    assert "byte-level BPE, 50257 tokens" in repr(gpt2)
    llama2 = sinklab.Tokenizer(folders["llama2"])
    assert (llama2.bos_id, llama2.eos_id) == (1, 2)
    assert llama2.encode("") == [1] and llama2.encode("", add_special_tokens=False) == []
    assert llama2.decode(llama2.encode("Hello world"), skip_special_tokens=True) == "Hello world"
    qwen3 = sinklab.tokenizer(folders["qwen3"])
    assert qwen3.bos_id is None and qwen3.eos_id == qwen3.token_to_id("<|im_end|>")


def test_errors_are_tokenizer_errors_naming_the_file(folders, tmp_path):
    with pytest.raises(sinklab.TokenizerError, match="no such file or folder"):
        sinklab.tokenizer(tmp_path / "absent")
    with pytest.raises(sinklab.TokenizerError, match="no tokenizer.json in this folder"):
        sinklab.tokenizer(tmp_path)
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "tokenizer.json").write_text('{"model": {"type": "Unigram", "vocab": []}}')
    with pytest.raises(sinklab.TokenizerError, match=r"bad/tokenizer.json: model.type: model \"Unigram\" is not supported"):
        sinklab.tokenizer(bad)
    truncated = tmp_path / "truncated"
    truncated.mkdir()
    (truncated / "tokenizer.json").write_bytes((folders["gpt2"] / "tokenizer.json").read_bytes()[:5000])
    with pytest.raises(sinklab.TokenizerError, match="not valid JSON"):
        sinklab.tokenizer(truncated)
    gpt2 = sinklab.tokenizer(folders["gpt2"])
    for bad_id in (50257, -1, 2**40):
        with pytest.raises(sinklab.TokenizerError, match=f"gpt2/tokenizer.json: decode: id {bad_id} is not a token"):
            gpt2.decode([464, bad_id])
    with pytest.raises(sinklab.TokenizerError):
        gpt2.id_to_token(10**6)
    assert issubclass(sinklab.TokenizerError, ValueError) and issubclass(sinklab.TokenizerError, sinklab.Error)
    with pytest.raises(TypeError):
        gpt2.encode(12)


def test_exported():
    assert {"tokenizer", "Tokenizer", "TokenizerError"} <= set(sinklab.__all__)
