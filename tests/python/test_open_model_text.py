"""An open model on a real text, end to end: a tiny random Llama-shaped checkpoint with Llama-2's real
vocabulary and tokenizer.json (tests/fixtures/tokenizers/llama2) reads the KJV excerpt through
sinklab.tokenizer, sinklab.load_model and `sinklab eval MODEL_DIR --text` (the sink analysis and
StreamingLLM from a KV cache), and every piece agrees on the tokens."""
import gzip
import json
import shutil
import struct

import numpy as np
import pytest

import sinklab
from conftest import SOURCE_DIR, run_cli

TOKENIZER = SOURCE_DIR / "tests/fixtures/tokenizers/llama2"
KJV = SOURCE_DIR / "tests/fixtures/corpus/kjv_excerpt.txt"
VOCAB, HIDDEN, LAYERS, HEADS, KV_HEADS, FFN = 32000, 16, 2, 2, 1, 32


def write_safetensors(path, tensors):
    """float32 tensors in the safetensors layout (run_files/safetensors_file.h), in the given order."""
    header, offset, blobs = {"__metadata__": {"format": "pt"}}, 0, []
    for name, array in tensors.items():
        data = np.ascontiguousarray(array, dtype="<f4").tobytes()
        header[name] = {"dtype": "F32", "shape": list(array.shape), "data_offsets": [offset, offset + len(data)]}
        offset += len(data)
        blobs.append(data)
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    path.write_bytes(struct.pack("<Q", len(text)) + text + b"".join(blobs))


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    folder = tmp_path_factory.mktemp("llama2_vocab")
    rng = np.random.default_rng(7)
    D = HIDDEN // HEADS
    w = {"model.embed_tokens.weight": rng.normal(0, 0.5, (VOCAB, HIDDEN))}
    for l in range(LAYERS):
        p = f"model.layers.{l}."
        w[p + "input_layernorm.weight"] = 1 + rng.normal(0, 0.1, HIDDEN)
        w[p + "self_attn.q_proj.weight"] = rng.normal(0, 0.3, (HEADS * D, HIDDEN))
        w[p + "self_attn.k_proj.weight"] = rng.normal(0, 0.3, (KV_HEADS * D, HIDDEN))
        w[p + "self_attn.v_proj.weight"] = rng.normal(0, 0.3, (KV_HEADS * D, HIDDEN))
        w[p + "self_attn.o_proj.weight"] = rng.normal(0, 0.3, (HIDDEN, HEADS * D))
        w[p + "post_attention_layernorm.weight"] = 1 + rng.normal(0, 0.1, HIDDEN)
        w[p + "mlp.gate_proj.weight"] = rng.normal(0, 0.3, (FFN, HIDDEN))
        w[p + "mlp.up_proj.weight"] = rng.normal(0, 0.3, (FFN, HIDDEN))
        w[p + "mlp.down_proj.weight"] = rng.normal(0, 0.3, (HIDDEN, FFN))
    w["model.norm.weight"] = np.ones(HIDDEN)
    w["lm_head.weight"] = rng.normal(0, 0.3, (VOCAB, HIDDEN))
    write_safetensors(folder / "model.safetensors", w)
    config = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "vocab_size": VOCAB, "hidden_size": HIDDEN,
              "num_hidden_layers": LAYERS, "num_attention_heads": HEADS, "num_key_value_heads": KV_HEADS,
              "intermediate_size": FFN, "hidden_act": "silu", "max_position_embeddings": 256, "rms_norm_eps": 1e-5,
              "rope_theta": 10000.0, "rope_scaling": None, "tie_word_embeddings": False, "bos_token_id": 1,
              "eos_token_id": 2, "torch_dtype": "float32"}
    (folder / "config.json").write_text(json.dumps(config, indent=2))
    (folder / "tokenizer.json").write_bytes(gzip.decompress((TOKENIZER / "tokenizer.json.gz").read_bytes()))
    shutil.copy(TOKENIZER / "tokenizer_config.json", folder / "tokenizer_config.json")
    return folder


def test_tokenizer_and_model_read_the_text(model_dir):
    tok = sinklab.tokenizer(model_dir)
    text = KJV.read_text(encoding="utf-8")
    ids = tok.encode(text)
    assert ids[0] == tok.bos_id == 1 and tok.vocab_size == VOCAB
    assert tok.decode(ids, skip_special_tokens=True) == text
    model = sinklab.load_model(model_dir)
    logits, cache = model.run_with_cache(np.array([ids[:64]]))
    assert logits.shape == (1, 64, VOCAB) and np.isfinite(logits).all()
    assert cache["pattern", 1].shape == (1, HEADS, 64, 64)
    assert np.allclose(cache["pattern", 1].sum(axis=-1), 1.0, atol=1e-5)


def test_eval_on_the_text(model_dir, tmp_path):
    tok = sinklab.tokenizer(model_dir)
    text_tokens = len(tok.encode(KJV.read_text(encoding="utf-8"), add_special_tokens=False))
    out = tmp_path / "eval.json"
    run_cli("eval", model_dir, "--text", KJV, "--seq-len", 64, "--windows", 2, "--threads", 1, "--out", out)
    e = json.loads(out.read_text())
    assert e["text_tokens"] == text_tokens and e["bos"] == 1 and e["seq_len"] == 64
    assert len(e["heads"]) == LAYERS * HEADS
    stream = tmp_path / "stream.json"
    run_cli("eval", model_dir, "--text", KJV, "--stream", "--window", 32, "--keep-first", "0,4", "--out", stream)
    s = json.loads(stream.read_text())
    assert s["method"] == "kv-cache" and s["tokens"] == text_tokens
    assert all(np.isfinite(row["loss"]) for row in s["streaming"])
