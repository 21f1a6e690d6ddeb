#!/usr/bin/env python3
"""Writes tests/fixtures/gpt2/: a tiny random GPT-2 in the Hugging Face layout and what it computes.

Usage: python3 tools/write_gpt2_fixture.py [--out-dir DIR]

We cannot download GPT-2 here, so the loader (models/gpt2_loader.h) is tested on a model of GPT-2's
shape with random weights: width 32, 2 blocks, 4 heads of 8, vocabulary 50, 16 positions, MLP 128.
GPT-2 is written out by hand below (no transformers package, no nn.MultiheadAttention), from the
Hugging Face GPT2Model definition:
  x = wte[ids] + wpe[:T]
  per block: a = ln_1(x); q | k | v = a @ c_attn.weight + c_attn.bias   (Conv1D: y = x W + b, W [in, out])
             heads: the columns of q, k, v in groups of 8; p = softmax(q k^T / sqrt(8)) over keys <= query
             x = x + (p v, heads side by side) @ attn.c_proj.weight + attn.c_proj.bias
             x = x + gelu_new(ln_2(x) @ mlp.c_fc.weight + b) @ mlp.c_proj.weight + b
  logits = ln_f(x) @ wte^T; LayerNorm: biased variance, eps 1e-5 inside the square root;
  gelu_new(x) = x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).

Files (about 150 kB):
  model.safetensors  every tensor under the GPT2LMHeadModel names ("transformer.h.0.ln_1.weight", ...),
                     F32, plus the causal-mask buffers h.{l}.attn.bias [1, 1, 16, 16] that older
                     transformers versions saved, and __metadata__ {"format": "pt"}. Written by hand
                     (the format: run_files/safetensors_file.h): Debian has no safetensors package.
  config.json        the Hugging Face config keys (n_head 4, ...).
  ids.npy            token ids, int64 [2, 16] (numpy.save).
  expected.bin       SLGOLD01 (docs/golden.md): "logits" [2, 16, 50] and "probs.layer{l}" [2, 4, 16, 16]
                     ([window, head, query, key], 0 above the diagonal).

As the golden fixtures: torch.manual_seed(0), every tensor drawn in float64 and rounded to float32
(the stored values), references computed in float64 from those, stored as float32.
"""
import argparse
import json
import math
import os
import struct

from torch_import import import_torch

torch = import_torch()  # first: it may re-run this script under Debian's python3, which has numpy
import numpy as np  # noqa: E402

import golden_format  # noqa: E402

WIDTH, LAYERS, HEADS, VOCAB, POSITIONS, HIDDEN = 32, 2, 4, 50, 16, 128
WINDOWS = 2
PREFIX = "transformer."
DEFAULT_OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures", "gpt2")


def draw(shape, mean, std):
    """N(mean, std^2) in float64, rounded to the float32 grid (what the file stores)."""
    return (mean + std * torch.randn(shape, dtype=torch.float64)).float().double()


def make_weights():
    """GPT-2's tensors by Hugging Face name, in draw order. Non-trivial LayerNorm gains and biases, and
    projections large enough (std 0.25) that attention is far from uniform."""
    w = {}
    w["wte.weight"] = draw((VOCAB, WIDTH), 0.0, 0.5)
    w["wpe.weight"] = draw((POSITIONS, WIDTH), 0.0, 0.3)
    for l in range(LAYERS):
        h = f"h.{l}."
        w[h + "ln_1.weight"] = draw((WIDTH,), 1.0, 0.1)
        w[h + "ln_1.bias"] = draw((WIDTH,), 0.0, 0.1)
        w[h + "attn.c_attn.weight"] = draw((WIDTH, 3 * WIDTH), 0.0, 0.25)
        w[h + "attn.c_attn.bias"] = draw((3 * WIDTH,), 0.0, 0.1)
        w[h + "attn.c_proj.weight"] = draw((WIDTH, WIDTH), 0.0, 0.25)
        w[h + "attn.c_proj.bias"] = draw((WIDTH,), 0.0, 0.1)
        w[h + "ln_2.weight"] = draw((WIDTH,), 1.0, 0.1)
        w[h + "ln_2.bias"] = draw((WIDTH,), 0.0, 0.1)
        w[h + "mlp.c_fc.weight"] = draw((WIDTH, HIDDEN), 0.0, 0.25)
        w[h + "mlp.c_fc.bias"] = draw((HIDDEN,), 0.0, 0.1)
        w[h + "mlp.c_proj.weight"] = draw((HIDDEN, WIDTH), 0.0, 0.25)
        w[h + "mlp.c_proj.bias"] = draw((WIDTH,), 0.0, 0.1)
    w["ln_f.weight"] = draw((WIDTH,), 1.0, 0.1)
    w["ln_f.bias"] = draw((WIDTH,), 0.0, 0.1)
    return w


def layer_norm(x, weight, bias):
    mean = x.mean(dim=-1, keepdim=True)
    var = ((x - mean) ** 2).mean(dim=-1, keepdim=True)
    return (x - mean) / torch.sqrt(var + 1e-5) * weight + bias


def gelu_new(x):
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))


def gpt2_forward(w, ids):
    """ids [B, T] -> logits [B, T, V] and the attention weights of every layer, each [B, H, T, T]."""
    batch, seq = ids.shape
    d_head = WIDTH // HEADS
    x = w["wte.weight"][ids] + w["wpe.weight"][:seq]
    visible = torch.ones(seq, seq, dtype=torch.bool).tril()
    probs = []
    for l in range(LAYERS):
        h = f"h.{l}."
        a = layer_norm(x, w[h + "ln_1.weight"], w[h + "ln_1.bias"])
        qkv = a @ w[h + "attn.c_attn.weight"] + w[h + "attn.c_attn.bias"]
        q, k, v = qkv.split(WIDTH, dim=-1)

        def heads(t):
            return t.view(batch, seq, HEADS, d_head).transpose(1, 2)  # [B, H, T, D]

        q, k, v = heads(q), heads(k), heads(v)
        scores = (q @ k.transpose(-1, -2)) / math.sqrt(d_head)
        p = scores.masked_fill(~visible, float("-inf")).softmax(dim=-1)
        probs.append(p)
        o = (p @ v).transpose(1, 2).reshape(batch, seq, WIDTH)
        x = x + o @ w[h + "attn.c_proj.weight"] + w[h + "attn.c_proj.bias"]
        m = layer_norm(x, w[h + "ln_2.weight"], w[h + "ln_2.bias"])
        m = gelu_new(m @ w[h + "mlp.c_fc.weight"] + w[h + "mlp.c_fc.bias"])
        x = x + m @ w[h + "mlp.c_proj.weight"] + w[h + "mlp.c_proj.bias"]
    x = layer_norm(x, w["ln_f.weight"], w["ln_f.bias"])
    return x @ w["wte.weight"].T, probs


def write_safetensors(path, tensors, metadata):
    """tensors: (name, float32 ndarray) pairs; data in the given order, header keys sorted as
    Hugging Face's writer sorts them, header padded with spaces to a multiple of 8 bytes."""
    header, chunks, offset = {}, [], 0
    for name, array in tensors:
        data = np.ascontiguousarray(array, dtype="<f4").tobytes()
        header[name] = {"dtype": "F32", "shape": list(array.shape), "data_offsets": [offset, offset + len(data)]}
        chunks.append(data)
        offset += len(data)
    text = json.dumps({"__metadata__": metadata, **dict(sorted(header.items()))}, separators=(",", ":"))
    text += " " * (-len(text) % 8)
    with open(path, "wb") as out:
        out.write(struct.pack("<Q", len(text)) + text.encode("utf-8") + b"".join(chunks))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out-dir", default=DEFAULT_OUT)
    args = parser.parse_args()
    os.makedirs(args.out_dir, exist_ok=True)

    torch.manual_seed(0)
    w = make_weights()
    ids = torch.randint(0, VOCAB, (WINDOWS, POSITIONS), dtype=torch.int64)
    logits, probs = gpt2_forward(w, ids)

    tensors = []
    for name, value in w.items():
        tensors.append((PREFIX + name, value.numpy().astype("<f4")))
        if name.endswith("ln_1.weight"):  # the mask buffer older transformers versions saved per block
            mask = np.tril(np.ones((POSITIONS, POSITIONS), dtype="<f4")).reshape(1, 1, POSITIONS, POSITIONS)
            tensors.append((PREFIX + name.replace("ln_1.weight", "attn.bias"), mask))
    write_safetensors(os.path.join(args.out_dir, "model.safetensors"), tensors, {"format": "pt"})
    config = {"model_type": "gpt2", "architectures": ["GPT2LMHeadModel"], "n_embd": WIDTH, "n_layer": LAYERS,
              "n_head": HEADS, "n_positions": POSITIONS, "n_ctx": POSITIONS, "vocab_size": VOCAB, "n_inner": None,
              "activation_function": "gelu_new", "layer_norm_epsilon": 1e-05}
    with open(os.path.join(args.out_dir, "config.json"), "w") as out:
        json.dump(config, out, indent=2)
        out.write("\n")
    np.save(os.path.join(args.out_dir, "ids.npy"), ids.numpy())
    expected = [("logits", logits.numpy())] + [(f"probs.layer{l}", p.numpy()) for l, p in enumerate(probs)]
    expected_path = os.path.join(args.out_dir, "expected.bin")
    golden_format.write_golden(expected_path, expected)
    golden_format.read_golden(expected_path)  # reads back what was written
    sizes = {f: os.path.getsize(os.path.join(args.out_dir, f)) for f in sorted(os.listdir(args.out_dir))}
    print(f"{args.out_dir}: " + ", ".join(f"{f} {n} B" for f, n in sizes.items()) +
          f"; max |logit| {logits.abs().max().item():.3f}, max weight {max(p.max().item() for p in probs):.3f}")


if __name__ == "__main__":
    main()
