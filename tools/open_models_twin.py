#!/usr/bin/env python3
"""A hand-written PyTorch reference ("twin") of open language-model families, in the Hugging Face layout.

Usage:
  python3 tools/open_models_twin.py forward DIR --ids ids.npy --out ref.npz [--dtype float32|float64]
  python3 tools/open_models_twin.py write-random --family llama --out DIR --seed 0 [--hidden 48 --layers 2
      --heads 6 --kv-heads 2 --vocab 80 --untied --rope-theta 500000 --dtype BF16 --shards 2 ...]

Debian has neither `transformers` nor `safetensors`, so both the forward passes and the file format are
written here by hand: the forward passes from each family's published equations and the semantics of the
Hugging Face modeling code (read for its conventions, not copied), the safetensors files from the format
(run_files/safetensors_file.h). The C++ loaders are tested against what this file computes, so every
convention that a loader could get subtly wrong is written down where it is implemented:

  * Linear weights are [out, in] (y = x W^T + b), except GPT-2's Conv1D, which is [in, out] (y = x W + b).
  * RoPE (Llama, Mistral, Qwen2, Qwen3, NeoX): the "rotate_half" convention of the Hugging Face checkpoints:
    within a head of rotary width R, dim i is paired with dim i + R/2 (not 2i with 2i+1), and the pair is
    rotated by the angle t * inv_freq[i], inv_freq[i] = theta^(-2i/R), i < R/2:
        out[i]       = x[i] cos - x[i + R/2] sin
        out[i + R/2] = x[i + R/2] cos + x[i] sin
    (Meta's original Llama code pairs (2i, 2i+1); the Hugging Face conversion permutes the q/k rows so the
    files use rotate_half. A loader that pairs adjacent dims is wrong on every HF checkpoint.)
  * NeoX's partial rotary: R = int(head_dim * rotary_pct), applied to the first R dims of each head, the
    rest passes through unchanged; theta = rotary_emb_base (or rope_theta in newer configs).
  * NeoX's fused query_key_value: weight [3*H*D, C]; its output viewed as [H, 3, D] per token, i.e. for
    head h rows h*3D .. h*3D+D-1 are q, the next D rows k, the next D v (NOT all q, then all k, then all v).
  * Grouped-query attention: query head h reads kv head h // (H / KV).
  * Mistral's sliding window W (Hugging Face's eager/sdpa mask): query i sees key j iff i - W < j <= i,
    i.e. key j is masked when i - j >= W; a query sees W keys including itself.
  * OPT's learned positions: embed_positions has max_position_embeddings + 2 rows; position t (no padding)
    reads row t + 2.
  * Llama-3.1's rope_scaling ("rope_type": "llama3"): with wavelen_i = 2 pi / inv_freq_i,
    L = original_max_position_embeddings, lo = L / low_freq_factor, hi = L / high_freq_factor:
      wavelen_i < hi:        inv_freq_i unchanged            (high frequencies)
      wavelen_i > lo:        inv_freq_i / factor             (low frequencies)
      otherwise:             (1 - s) inv_freq_i / factor + s inv_freq_i,
                             s = (L / wavelen_i - low_freq_factor) / (high_freq_factor - low_freq_factor)
    "linear" scaling divides every inv_freq by factor (positions t / factor). Attention is not rescaled.
  * Scores are q.k / sqrt(head_dim) in every family; causal softmax over keys j <= i. Hugging Face computes
    the RoPE tables in float32; this twin computes everything in the dtype asked for (float64 by default).

forward() returns "logits" [W, T, V], "probs.layer{l}" [W, H, T, T] (softmax weights, exactly 0 at masked
keys) and "resid_post.layer{l}" [W, T, C] (the residual stream after block l, before the final norm).
"""
import argparse
import json
import math
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_import import import_torch  # noqa: E402

torch = import_torch()  # first: it may re-run this script under Debian's python3, which has numpy
import numpy as np  # noqa: E402

import golden_format  # noqa: E402

FAMILIES = ("gpt2", "gpt_neox", "llama", "mistral", "qwen2", "qwen3", "opt")
STORED_DTYPES = ("F32", "F16", "BF16")
TORCH_DTYPE_NAME = {"F32": "float32", "F16": "float16", "BF16": "bfloat16"}

# ----------------------------------------------------------------------------------------------------
# safetensors by hand
# ----------------------------------------------------------------------------------------------------


def bf16_bits_to_float32(bits):
    """BF16 is the top half of an IEEE float32: shifting the 16 bits up gives the exact float32 value
    (numpy has no bfloat16 type)."""
    return (bits.astype(np.uint32) << np.uint32(16)).view(np.float32)


def round_to_stored(array, dtype):
    """float64 ndarray -> the stored dtype's values (as float64) and their little-endian bytes.
    Rounded once, from float64, to nearest-even: rounding through float32 first would round twice."""
    array = np.asarray(array, dtype=np.float64)
    if dtype == "F32":
        stored = array.astype("<f4")
        return stored.astype(np.float64), stored.tobytes()
    if dtype == "F16":
        stored = array.astype("<f2")  # numpy converts double -> half directly, to nearest-even
        return stored.astype(np.float64), stored.tobytes()
    if dtype == "BF16":
        # 8 significant bits: frexp gives m in [0.5, 1), so m * 256 rounded (half to even) keeps 8 bits.
        # Exact for the normal range, which is all a random checkpoint holds.
        mantissa, exponent = np.frexp(array)
        rounded = np.ldexp(np.round(mantissa * 256.0) / 256.0, exponent)
        bits = (rounded.astype("<f4").view(np.uint32) >> np.uint32(16)).astype("<u2")
        return rounded, bits.tobytes()
    raise ValueError(f"unsupported stored dtype {dtype!r} (F32, F16, BF16)")


def encode_safetensors(entries, metadata):
    """entries: (name, dtype, shape, raw bytes) in data order. Header keys sorted as Hugging Face's writer
    sorts them, padded with spaces to a multiple of 8 bytes (run_files/safetensors_file.h)."""
    header, chunks, offset = {}, [], 0
    for name, dtype, shape, data in entries:
        header[name] = {"dtype": dtype, "shape": list(shape), "data_offsets": [offset, offset + len(data)]}
        chunks.append(data)
        offset += len(data)
    text = json.dumps({"__metadata__": metadata, **dict(sorted(header.items()))}, separators=(",", ":"))
    text += " " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text.encode("utf-8") + b"".join(chunks)


_NUMPY_OF = {"F32": "<f4", "F16": "<f2", "F64": "<f8", "I64": "<i8", "I32": "<i4", "I16": "<i2", "I8": "i1",
             "U8": "u1", "BOOL": "u1"}


def read_safetensors(path):
    """{name: float64 tensor} of one file. F32, F16, BF16 as the brief asks, and the integer/bool dtypes
    of buffers real checkpoints carry (NeoX's causal-mask `attention.bias` is BOOL) as their values."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 8:
        raise ValueError(f"{path}: shorter than the 8-byte header length")
    (n,) = struct.unpack("<Q", data[:8])
    if 8 + n > len(data):
        raise ValueError(f"{path}: header length {n} runs past the end of the file")
    header = json.loads(data[8:8 + n].decode("utf-8"))
    base = 8 + n
    tensors = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        begin, end = entry["data_offsets"]
        raw = data[base + begin: base + end]
        shape = tuple(entry["shape"])
        dtype = entry["dtype"]
        if dtype == "BF16":
            values = bf16_bits_to_float32(np.frombuffer(raw, dtype="<u2"))
        elif dtype in _NUMPY_OF:
            values = np.frombuffer(raw, dtype=_NUMPY_OF[dtype])
        else:
            raise ValueError(f"{path}: tensor {name} has dtype {dtype}, which this twin does not read")
        if values.size != int(np.prod(shape, dtype=np.int64)):
            raise ValueError(f"{path}: tensor {name}: {values.size} values for shape {list(shape)}")
        tensors[name] = torch.from_numpy(values.astype(np.float64).reshape(shape))
    return tensors


def read_folder(folder):
    """(config dict, {name: float64 tensor}) of a Hugging Face model folder: config.json plus either
    model.safetensors or model.safetensors.index.json with its shards."""
    with open(os.path.join(folder, "config.json"), encoding="utf-8") as f:
        config = json.load(f)
    index_path = os.path.join(folder, "model.safetensors.index.json")
    if os.path.exists(index_path):
        with open(index_path, encoding="utf-8") as f:
            weight_map = json.load(f)["weight_map"]
        tensors = {}
        for shard in sorted(set(weight_map.values())):
            for name, value in read_safetensors(os.path.join(folder, shard)).items():
                if weight_map.get(name) != shard:
                    raise ValueError(f"{folder}: {name} is in {shard} but the index puts it in "
                                     f"{weight_map.get(name)}")
                tensors[name] = value
        missing = sorted(set(weight_map) - set(tensors))
        if missing:
            raise ValueError(f"{folder}: the index names tensors no shard holds: {missing[:5]}")
    else:
        tensors = read_safetensors(os.path.join(folder, "model.safetensors"))
    return config, tensors


def write_folder(folder, config, tensors, dtype="F32", shards=1, buffers=()):
    """Writes config.json and the weights (model.safetensors, or `shards` files named as Hugging Face names
    them plus model.safetensors.index.json). tensors: {name: float64 tensor} already on the stored grid;
    buffers: extra (name, dtype, shape, raw bytes) entries written after the weights as real files carry
    them. Returns nothing; deterministic bytes for equal input."""
    os.makedirs(folder, exist_ok=True)
    entries = []
    for name, value in tensors.items():
        _, raw = round_to_stored(value.numpy(), dtype)
        entries.append((name, dtype, tuple(value.shape), raw))
    entries.extend(buffers)
    metadata = {"format": "pt"}
    for stale in ["model.safetensors", "model.safetensors.index.json"] + \
            [f for f in os.listdir(folder) if f.startswith("model-") and f.endswith(".safetensors")]:
        if os.path.exists(os.path.join(folder, stale)):
            os.remove(os.path.join(folder, stale))
    if shards <= 1:
        with open(os.path.join(folder, "model.safetensors"), "wb") as out:
            out.write(encode_safetensors(entries, metadata))
    else:
        # Split in data order into `shards` runs of about equal bytes, as save_pretrained's max_shard_size
        # does (it never splits a tensor).
        total = sum(len(e[3]) for e in entries)
        groups, current, size = [], [], 0
        for e in entries:
            if current and size + len(e[3]) > total / shards * (len(groups) + 1) and len(groups) < shards - 1:
                groups.append(current)
                current = []
            current.append(e)
            size += len(e[3])
        groups.append(current)
        if len(groups) < shards:  # fewer tensors than shards asked for: refuse rather than write empties
            raise ValueError(f"cannot split {len(entries)} tensors into {shards} shards")
        weight_map = {}
        for k, group in enumerate(groups):
            fname = f"model-{k + 1:05d}-of-{shards:05d}.safetensors"
            with open(os.path.join(folder, fname), "wb") as out:
                out.write(encode_safetensors(group, metadata))
            for e in group:
                weight_map[e[0]] = fname
        index = {"metadata": {"total_size": total}, "weight_map": dict(sorted(weight_map.items()))}
        with open(os.path.join(folder, "model.safetensors.index.json"), "w", encoding="utf-8") as out:
            json.dump(index, out, indent=2)
            out.write("\n")
    with open(os.path.join(folder, "config.json"), "w", encoding="utf-8") as out:
        json.dump(config, out, indent=2)
        out.write("\n")


# ----------------------------------------------------------------------------------------------------
# building blocks
# ----------------------------------------------------------------------------------------------------


def layer_norm(x, weight, bias, eps):
    mean = x.mean(dim=-1, keepdim=True)
    var = ((x - mean) ** 2).mean(dim=-1, keepdim=True)  # biased variance, as torch.nn.LayerNorm
    out = (x - mean) / torch.sqrt(var + eps) * weight
    return out if bias is None else out + bias


def rms_norm(x, weight, eps):
    # Llama/Qwen RMSNorm: no mean subtraction, no bias; eps inside the square root.
    return x / torch.sqrt((x * x).mean(dim=-1, keepdim=True) + eps) * weight


def gelu_exact(x):
    return 0.5 * x * (1.0 + torch.erf(x / math.sqrt(2.0)))


def gelu_new(x):
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))


def silu(x):
    return x * torch.sigmoid(x)


def linear(x, w, b=None):
    y = x @ w.T
    return y if b is None else y + b


def rope_inv_freq(rotary_dim, theta, scaling, dtype):
    """inv_freq[i] = theta^(-2i/R), i < R/2, then the config's rope_scaling (module docstring)."""
    inv_freq = 1.0 / (theta ** (torch.arange(0, rotary_dim, 2, dtype=torch.float64) / rotary_dim))
    if scaling is not None:
        kind = scaling.get("rope_type", scaling.get("type"))
        if kind == "default":
            pass
        elif kind == "linear":
            inv_freq = inv_freq / float(scaling["factor"])
        elif kind == "llama3":
            factor = float(scaling["factor"])
            low, high = float(scaling["low_freq_factor"]), float(scaling["high_freq_factor"])
            original = float(scaling["original_max_position_embeddings"])
            low_freq_wavelen, high_freq_wavelen = original / low, original / high
            wavelen = 2.0 * math.pi / inv_freq
            smooth = (original / wavelen - low) / (high - low)
            smoothed = (1.0 - smooth) * inv_freq / factor + smooth * inv_freq
            inv_freq = torch.where(wavelen < high_freq_wavelen, inv_freq,
                                   torch.where(wavelen > low_freq_wavelen, inv_freq / factor, smoothed))
        else:
            raise ValueError(f"rope_scaling type {kind!r} is not computed by this twin (null, linear, llama3)")
    return inv_freq.to(dtype)


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def apply_rope(x, inv_freq):
    """x [W, H, T, R]: rotate_half RoPE at positions 0..T-1 (pairs (i, i + R/2))."""
    t = torch.arange(x.shape[-2], dtype=x.dtype)
    angles = torch.outer(t, inv_freq.to(x.dtype))  # [T, R/2]
    emb = torch.cat((angles, angles), dim=-1)  # [T, R]: dims i and i + R/2 share an angle
    return x * emb.cos() + rotate_half(x) * emb.sin()


def apply_partial_rope(x, inv_freq, rotary_dim):
    """NeoX: RoPE on the first rotary_dim dims of each head, the rest unchanged."""
    if rotary_dim == 0:
        return x
    return torch.cat((apply_rope(x[..., :rotary_dim], inv_freq), x[..., rotary_dim:]), dim=-1)


def attention(q, k, v, window=None):
    """q [W, H, T, D]; k, v [W, KV, T, D] with H a multiple of KV (query head h reads kv head h // (H/KV)).
    Returns (output [W, T, H*D], probs [W, H, T, T])."""
    heads, kv_heads = q.shape[1], k.shape[1]
    if heads % kv_heads:
        raise ValueError(f"num_attention_heads {heads} is not a multiple of num_key_value_heads {kv_heads}")
    group = heads // kv_heads
    # repeat_interleave puts kv head g at query heads g*group .. g*group+group-1, i.e. h -> h // group.
    k = k.repeat_interleave(group, dim=1)
    v = v.repeat_interleave(group, dim=1)
    seq = q.shape[-2]
    i = torch.arange(seq).view(-1, 1)
    j = torch.arange(seq).view(1, -1)
    visible = j <= i
    if window is not None:
        visible = visible & (i - j < window)  # HF eager/sdpa: masked where i - j >= window
    scores = (q @ k.transpose(-1, -2)) / math.sqrt(q.shape[-1])
    probs = scores.masked_fill(~visible, float("-inf")).softmax(dim=-1)
    out = probs @ v  # [W, H, T, D]
    w, h, t, d = out.shape
    return out.transpose(1, 2).reshape(w, t, h * d), probs


def split_heads(x, heads, head_dim):
    w, t, _ = x.shape
    return x.view(w, t, heads, head_dim).transpose(1, 2)


def _get(tensors, name, dtype):
    if name not in tensors:
        raise KeyError(f"the checkpoint has no tensor {name!r}")
    return tensors[name].to(dtype)


def _opt_get(tensors, name, dtype):
    return tensors[name].to(dtype) if name in tensors else None


def _refuse(config, key, allowed, default=None):
    value = config.get(key, default)
    if value not in allowed:
        raise ValueError(f"config.json: {key} = {value!r} is not computed by this twin (allowed: {allowed})")
    return value


# ----------------------------------------------------------------------------------------------------
# families
# ----------------------------------------------------------------------------------------------------


def forward_gpt2(config, tensors, ids, dtype):
    prefix = "transformer." if "transformer.wte.weight" in tensors else ""  # openai-community files have none
    _refuse(config, "activation_function", ("gelu_new",), "gelu_new")
    for key in ("scale_attn_by_inverse_layer_idx", "reorder_and_upcast_attn"):
        _refuse(config, key, (False, None))
    g = lambda name: _get(tensors, prefix + name, dtype)  # noqa: E731
    width, layers, heads = config["n_embd"], config["n_layer"], config["n_head"]
    eps = config.get("layer_norm_epsilon", 1e-5)
    d = width // heads
    seq = ids.shape[1]
    x = g("wte.weight")[ids] + g("wpe.weight")[:seq]
    out = {}
    for l in range(layers):
        h = f"h.{l}."
        a = layer_norm(x, g(h + "ln_1.weight"), g(h + "ln_1.bias"), eps)
        qkv = a @ g(h + "attn.c_attn.weight") + g(h + "attn.c_attn.bias")  # Conv1D: W [in, out]
        q, k, v = (split_heads(t, heads, d) for t in qkv.split(width, dim=-1))
        o, p = attention(q, k, v)
        x = x + o @ g(h + "attn.c_proj.weight") + g(h + "attn.c_proj.bias")
        m = layer_norm(x, g(h + "ln_2.weight"), g(h + "ln_2.bias"), eps)
        m = gelu_new(m @ g(h + "mlp.c_fc.weight") + g(h + "mlp.c_fc.bias"))
        x = x + m @ g(h + "mlp.c_proj.weight") + g(h + "mlp.c_proj.bias")
        out[f"probs.layer{l}"], out[f"resid_post.layer{l}"] = p, x
    x = layer_norm(x, g("ln_f.weight"), g("ln_f.bias"), eps)
    out["logits"] = x @ g("wte.weight").T  # tied to the token embedding
    return out


def forward_gpt_neox(config, tensors, ids, dtype):
    g = lambda name: _get(tensors, "gpt_neox." + name, dtype)  # noqa: E731
    width, layers, heads = config["hidden_size"], config["num_hidden_layers"], config["num_attention_heads"]
    d = width // heads
    eps = config.get("layer_norm_eps", 1e-5)
    act = _refuse(config, "hidden_act", ("gelu", "gelu_new"), "gelu")
    act_fn = gelu_exact if act == "gelu" else gelu_new
    if config.get("rope_scaling") is not None:
        raise ValueError("config.json: rope_scaling is not computed by this twin for gpt_neox")
    rotary_dim = int(d * config.get("rotary_pct", 1.0))
    theta = config.get("rotary_emb_base", config.get("rope_theta", 10000))
    inv_freq = rope_inv_freq(rotary_dim, theta, None, dtype) if rotary_dim else None
    parallel = config.get("use_parallel_residual", True)
    has_attn_bias = config.get("attention_bias", True)
    x = g("embed_in.weight")[ids]
    out = {}
    for l in range(layers):
        h = f"layers.{l}."
        b = (lambda name: g(h + name)) if has_attn_bias else (lambda name: None)

        def attn(a):
            qkv = linear(a, g(h + "attention.query_key_value.weight"), b("attention.query_key_value.bias"))
            w, t, _ = qkv.shape
            qkv = qkv.view(w, t, heads, 3 * d).transpose(1, 2)  # per head [q | k | v], each D wide
            q, k, v = qkv[..., :d], qkv[..., d:2 * d], qkv[..., 2 * d:]
            q = apply_partial_rope(q, inv_freq, rotary_dim)
            k = apply_partial_rope(k, inv_freq, rotary_dim)
            o, p = attention(q, k, v)
            return linear(o, g(h + "attention.dense.weight"), b("attention.dense.bias")), p

        def mlp(a):
            a = act_fn(linear(a, g(h + "mlp.dense_h_to_4h.weight"), g(h + "mlp.dense_h_to_4h.bias")))
            return linear(a, g(h + "mlp.dense_4h_to_h.weight"), g(h + "mlp.dense_4h_to_h.bias"))

        ln1 = lambda y: layer_norm(y, g(h + "input_layernorm.weight"), g(h + "input_layernorm.bias"), eps)  # noqa
        ln2 = lambda y: layer_norm(y, g(h + "post_attention_layernorm.weight"),  # noqa: E731
                                   g(h + "post_attention_layernorm.bias"), eps)
        a, p = attn(ln1(x))
        if parallel:
            x = x + a + mlp(ln2(x))  # both branches read the block's input
        else:
            x = x + a
            x = x + mlp(ln2(x))
        out[f"probs.layer{l}"], out[f"resid_post.layer{l}"] = p, x
    x = layer_norm(x, g("final_layer_norm.weight"), g("final_layer_norm.bias"), eps)
    lm_head = "embed_out.weight"
    if config.get("tie_word_embeddings", False) and lm_head not in tensors:
        lm_head = "gpt_neox.embed_in.weight"
    out["logits"] = linear(x, _get(tensors, lm_head, dtype))
    return out


def forward_llama_like(config, tensors, ids, dtype):
    """llama, mistral, qwen2, qwen3: one decoder with the families' differences as flags."""
    family = config["model_type"]
    g = lambda name: _get(tensors, "model." + name, dtype)  # noqa: E731
    width, layers, heads = config["hidden_size"], config["num_hidden_layers"], config["num_attention_heads"]
    kv_heads = config.get("num_key_value_heads") or heads
    d = config.get("head_dim") or width // heads
    eps = config["rms_norm_eps"]
    _refuse(config, "hidden_act", ("silu",), "silu")
    # pretraining_tp > 1 only slices the same matmuls (same result up to rounding): nothing to refuse.
    attn_bias = config.get("attention_bias", False)
    qkv_bias, o_bias = attn_bias, attn_bias
    if family == "qwen2":
        qkv_bias, o_bias = True, False  # Qwen2 always has q/k/v biases and never an o_proj bias
    mlp_bias = config.get("mlp_bias", False)
    window = None
    if family == "mistral":
        window = config.get("sliding_window")
    elif family in ("qwen2", "qwen3"):
        _refuse(config, "use_sliding_window", (False, None), False)
    qk_norm = family == "qwen3"
    inv_freq = rope_inv_freq(d, config.get("rope_theta", 10000.0), config.get("rope_scaling"), dtype)
    x = g("embed_tokens.weight")[ids]
    out = {}
    for l in range(layers):
        h = f"layers.{l}."
        ob = lambda name, on: g(h + name) if on else None  # noqa: E731
        a = rms_norm(x, g(h + "input_layernorm.weight"), eps)
        q = linear(a, g(h + "self_attn.q_proj.weight"), ob("self_attn.q_proj.bias", qkv_bias))
        k = linear(a, g(h + "self_attn.k_proj.weight"), ob("self_attn.k_proj.bias", qkv_bias))
        v = linear(a, g(h + "self_attn.v_proj.weight"), ob("self_attn.v_proj.bias", qkv_bias))
        q, k, v = split_heads(q, heads, d), split_heads(k, kv_heads, d), split_heads(v, kv_heads, d)
        if qk_norm:  # Qwen3: RMSNorm over each head's D dims, before RoPE
            q = rms_norm(q, g(h + "self_attn.q_norm.weight"), eps)
            k = rms_norm(k, g(h + "self_attn.k_norm.weight"), eps)
        q, k = apply_rope(q, inv_freq), apply_rope(k, inv_freq)
        o, p = attention(q, k, v, window)
        x = x + linear(o, g(h + "self_attn.o_proj.weight"), ob("self_attn.o_proj.bias", o_bias))
        m = rms_norm(x, g(h + "post_attention_layernorm.weight"), eps)
        gate = linear(m, g(h + "mlp.gate_proj.weight"), ob("mlp.gate_proj.bias", mlp_bias))
        up = linear(m, g(h + "mlp.up_proj.weight"), ob("mlp.up_proj.bias", mlp_bias))
        x = x + linear(silu(gate) * up, g(h + "mlp.down_proj.weight"), ob("mlp.down_proj.bias", mlp_bias))
        out[f"probs.layer{l}"], out[f"resid_post.layer{l}"] = p, x
    x = rms_norm(x, g("norm.weight"), eps)
    if config.get("tie_word_embeddings", False):
        head = g("embed_tokens.weight")  # tied files usually omit lm_head.weight
    else:
        head = _get(tensors, "lm_head.weight", dtype)
    out["logits"] = linear(x, head)
    return out


def forward_opt(config, tensors, ids, dtype):
    # OPTForCausalLM.save_pretrained writes "model.decoder.*"; the original facebook/opt-* files were saved
    # from OPTModel and have "decoder.*": read both.
    prefix = "model.decoder." if "model.decoder.embed_tokens.weight" in tensors else "decoder."
    g = lambda name: _get(tensors, prefix + name, dtype)  # noqa: E731
    width, layers, heads = config["hidden_size"], config["num_hidden_layers"], config["num_attention_heads"]
    d = width // heads
    _refuse(config, "do_layer_norm_before", (True,), True)
    _refuse(config, "activation_function", ("relu",), "relu")
    _refuse(config, "layer_norm_elementwise_affine", (True,), True)
    if config.get("word_embed_proj_dim", width) != width:
        raise ValueError("config.json: word_embed_proj_dim != hidden_size (project_in/out) is not computed")
    bias = config.get("enable_bias", True)
    b = (lambda name: g(name)) if bias else (lambda name: None)
    eps = 1e-5  # nn.LayerNorm's default; OPT's config has no eps key
    seq = ids.shape[1]
    x = g("embed_tokens.weight")[ids] + g("embed_positions.weight")[2:seq + 2]  # offset 2
    out = {}
    for l in range(layers):
        h = f"layers.{l}."
        a = layer_norm(x, g(h + "self_attn_layer_norm.weight"), b(h + "self_attn_layer_norm.bias"), eps)
        q = split_heads(linear(a, g(h + "self_attn.q_proj.weight"), b(h + "self_attn.q_proj.bias")), heads, d)
        k = split_heads(linear(a, g(h + "self_attn.k_proj.weight"), b(h + "self_attn.k_proj.bias")), heads, d)
        v = split_heads(linear(a, g(h + "self_attn.v_proj.weight"), b(h + "self_attn.v_proj.bias")), heads, d)
        o, p = attention(q, k, v)
        x = x + linear(o, g(h + "self_attn.out_proj.weight"), b(h + "self_attn.out_proj.bias"))
        m = layer_norm(x, g(h + "final_layer_norm.weight"), b(h + "final_layer_norm.bias"), eps)
        m = torch.relu(linear(m, g(h + "fc1.weight"), b(h + "fc1.bias")))
        x = x + linear(m, g(h + "fc2.weight"), b(h + "fc2.bias"))
        out[f"probs.layer{l}"], out[f"resid_post.layer{l}"] = p, x
    x = layer_norm(x, g("final_layer_norm.weight"), b("final_layer_norm.bias"), eps)
    head = tensors["lm_head.weight"].to(dtype) if "lm_head.weight" in tensors else g("embed_tokens.weight")
    out["logits"] = linear(x, head)
    return out


_FORWARD = {"gpt2": forward_gpt2, "gpt_neox": forward_gpt_neox, "llama": forward_llama_like,
            "mistral": forward_llama_like, "qwen2": forward_llama_like, "qwen3": forward_llama_like,
            "opt": forward_opt}


def forward(config, tensors, ids, dtype=torch.float64):
    """Dispatch on config["model_type"]; ids [W, T] int64. Returns the dict of the module docstring, in
    the order logits, probs.layer0.., resid_post.layer0.."""
    family = config.get("model_type")
    if family not in _FORWARD:
        raise ValueError(f"config.json: model_type {family!r} is not one of {FAMILIES}")
    ids = torch.as_tensor(ids, dtype=torch.int64)
    if ids.dim() != 2:
        raise ValueError(f"ids must be [windows, T], got shape {list(ids.shape)}")
    vocab = config.get("vocab_size")
    if vocab is not None and (ids.min() < 0 or ids.max() >= vocab):
        raise ValueError(f"token ids must be in [0, {vocab}); got {ids.min().item()}..{ids.max().item()}")
    raw = _FORWARD[family](config, tensors, ids, dtype)
    layers = sum(1 for k in raw if k.startswith("probs.layer"))
    ordered = {"logits": raw["logits"]}
    ordered.update({f"probs.layer{l}": raw[f"probs.layer{l}"] for l in range(layers)})
    ordered.update({f"resid_post.layer{l}": raw[f"resid_post.layer{l}"] for l in range(layers)})
    return ordered


# ----------------------------------------------------------------------------------------------------
# random checkpoints in the Hugging Face layout
# ----------------------------------------------------------------------------------------------------


def make_config(family, hidden=32, layers=2, heads=4, kv_heads=None, head_dim=None, vocab=64, positions=64,
                intermediate=None, rope_theta=None, untied=False, dtype="F32", rotary_pct=0.25,
                parallel_residual=True, sliding_window=None, rope_scaling=None, attention_bias=None,
                mlp_bias=False):
    """config.json of a tiny model, spelled as the family's real configs spell it (pythia-70m,
    TinyLlama / Llama-3.2-1B, Mistral-7B-v0.1, Qwen2.5-0.5B, Qwen3-0.6B, opt-125m, gpt2). Token ids for
    bos/eos are kept inside the tiny vocabulary."""
    torch_dtype = TORCH_DTYPE_NAME[dtype]
    kv_heads = kv_heads or heads
    if family == "gpt2":
        if head_dim not in (None, hidden // heads) or kv_heads != heads:
            raise ValueError("gpt2 has head_dim = n_embd / n_head and no GQA")
        return {"activation_function": "gelu_new", "architectures": ["GPT2LMHeadModel"], "attn_pdrop": 0.1,
                "bos_token_id": vocab - 1, "embd_pdrop": 0.1, "eos_token_id": vocab - 1,
                "initializer_range": 0.02, "layer_norm_epsilon": 1e-05, "model_type": "gpt2", "n_ctx": positions,
                "n_embd": hidden, "n_head": heads, "n_inner": intermediate, "n_layer": layers,
                "n_positions": positions, "resid_pdrop": 0.1, "torch_dtype": torch_dtype,
                "vocab_size": vocab}
    if family == "gpt_neox":
        if head_dim not in (None, hidden // heads) or kv_heads != heads:
            raise ValueError("gpt_neox has head_dim = hidden_size / num_attention_heads and no GQA")
        config = {"architectures": ["GPTNeoXForCausalLM"], "bos_token_id": 0, "eos_token_id": 0, "hidden_act": "gelu",
                  "hidden_size": hidden, "initializer_range": 0.02, "intermediate_size": intermediate or 4 * hidden,
                  "layer_norm_eps": 1e-05, "max_position_embeddings": positions, "model_type": "gpt_neox",
                  "num_attention_heads": heads, "num_hidden_layers": layers,
                  "rotary_emb_base": rope_theta or 10000, "rotary_pct": rotary_pct,
                  "tie_word_embeddings": False, "torch_dtype": torch_dtype,  # Pythia never ties embed_out
                  "use_cache": True, "use_parallel_residual": parallel_residual, "vocab_size": vocab}
        if attention_bias is not None:  # pythia's configs predate the key (default true)
            config["attention_bias"] = attention_bias
        return dict(sorted(config.items()))
    if family == "opt":
        if head_dim not in (None, hidden // heads) or kv_heads != heads:
            raise ValueError("opt has head_dim = hidden_size / num_attention_heads and no GQA")
        return {"_remove_final_layer_norm": False, "activation_dropout": 0.0, "activation_function": "relu",
                "architectures": ["OPTForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 2,
                "do_layer_norm_before": True, "dropout": 0.1, "enable_bias": True, "eos_token_id": 2,
                "ffn_dim": intermediate or 4 * hidden, "hidden_size": hidden, "init_std": 0.02,
                "layer_norm_elementwise_affine": True, "layerdrop": 0.0, "max_position_embeddings": positions,
                "model_type": "opt", "num_attention_heads": heads, "num_hidden_layers": layers,
                "pad_token_id": 1, "prefix": "</s>", "torch_dtype": torch_dtype, "use_cache": True,
                "vocab_size": vocab, "word_embed_proj_dim": hidden}
    arch = {"llama": "LlamaForCausalLM", "mistral": "MistralForCausalLM", "qwen2": "Qwen2ForCausalLM",
            "qwen3": "Qwen3ForCausalLM"}
    if family not in arch:
        raise ValueError(f"unknown family {family!r}; one of {FAMILIES}")
    config = {"architectures": [arch[family]], "attention_dropout": 0.0, "bos_token_id": 1, "eos_token_id": 2,
              "hidden_act": "silu", "hidden_size": hidden, "initializer_range": 0.02,
              "intermediate_size": intermediate or 2 * hidden, "max_position_embeddings": positions,
              "model_type": family, "num_attention_heads": heads, "num_hidden_layers": layers,
              "num_key_value_heads": kv_heads, "rms_norm_eps": 1e-05 if family in ("llama", "mistral") else 1e-06,
              "rope_scaling": rope_scaling, "rope_theta": float(rope_theta or (1000000.0 if family == "qwen3"
                                                                                else 10000.0)),
              "tie_word_embeddings": not untied, "torch_dtype": torch_dtype, "use_cache": True, "vocab_size": vocab}
    if family == "llama":
        config.update({"attention_bias": bool(attention_bias), "mlp_bias": bool(mlp_bias), "pretraining_tp": 1})
    if family == "mistral":
        config["sliding_window"] = sliding_window
    if family in ("qwen2", "qwen3"):
        config.update({"max_window_layers": layers, "sliding_window": None, "use_sliding_window": False})
    if family == "qwen3":
        config["attention_bias"] = bool(attention_bias)
    if head_dim is not None or family == "qwen3":
        config["head_dim"] = head_dim or hidden // heads
    return dict(sorted(config.items()))


def tensor_shapes(config):
    """(name, shape, kind) in Hugging Face's state_dict order; kind is "matrix", "bias", "gain" or "embed"
    and chooses the random distribution."""
    family = config["model_type"]
    out = []
    add = lambda name, shape, kind: out.append((name, tuple(shape), kind))  # noqa: E731
    if family == "gpt2":
        c, L, v, p = config["n_embd"], config["n_layer"], config["vocab_size"], config["n_positions"]
        inner = config.get("n_inner") or 4 * c
        add("transformer.wte.weight", (v, c), "embed")
        add("transformer.wpe.weight", (p, c), "pos")
        for l in range(L):
            h = f"transformer.h.{l}."
            add(h + "ln_1.weight", (c,), "gain"), add(h + "ln_1.bias", (c,), "bias")
            add(h + "attn.c_attn.weight", (c, 3 * c), "matrix"), add(h + "attn.c_attn.bias", (3 * c,), "bias")
            add(h + "attn.c_proj.weight", (c, c), "matrix"), add(h + "attn.c_proj.bias", (c,), "bias")
            add(h + "ln_2.weight", (c,), "gain"), add(h + "ln_2.bias", (c,), "bias")
            add(h + "mlp.c_fc.weight", (c, inner), "matrix"), add(h + "mlp.c_fc.bias", (inner,), "bias")
            add(h + "mlp.c_proj.weight", (inner, c), "matrix"), add(h + "mlp.c_proj.bias", (c,), "bias")
        add("transformer.ln_f.weight", (c,), "gain"), add("transformer.ln_f.bias", (c,), "bias")
        return out
    c, L, v = config["hidden_size"], config["num_hidden_layers"], config["vocab_size"]
    heads = config["num_attention_heads"]
    if family == "gpt_neox":
        inner = config["intermediate_size"]
        bias = config.get("attention_bias", True)
        add("gpt_neox.embed_in.weight", (v, c), "embed")
        for l in range(L):
            h = f"gpt_neox.layers.{l}."
            add(h + "input_layernorm.weight", (c,), "gain"), add(h + "input_layernorm.bias", (c,), "bias")
            add(h + "post_attention_layernorm.weight", (c,), "gain")
            add(h + "post_attention_layernorm.bias", (c,), "bias")
            add(h + "attention.query_key_value.weight", (3 * c, c), "matrix")
            if bias:
                add(h + "attention.query_key_value.bias", (3 * c,), "bias")
            add(h + "attention.dense.weight", (c, c), "matrix")
            if bias:
                add(h + "attention.dense.bias", (c,), "bias")
            add(h + "mlp.dense_h_to_4h.weight", (inner, c), "matrix"), add(h + "mlp.dense_h_to_4h.bias", (inner,), "bias")
            add(h + "mlp.dense_4h_to_h.weight", (c, inner), "matrix"), add(h + "mlp.dense_4h_to_h.bias", (c,), "bias")
        add("gpt_neox.final_layer_norm.weight", (c,), "gain"), add("gpt_neox.final_layer_norm.bias", (c,), "bias")
        add("embed_out.weight", (v, c), "embed")
        return out
    if family == "opt":
        inner, p = config["ffn_dim"], config["max_position_embeddings"]
        add("model.decoder.embed_tokens.weight", (v, c), "embed")
        add("model.decoder.embed_positions.weight", (p + 2, c), "pos")
        for l in range(L):
            h = f"model.decoder.layers.{l}."
            for proj in ("k_proj", "v_proj", "q_proj", "out_proj"):  # OPTAttention's definition order
                add(h + f"self_attn.{proj}.weight", (c, c), "matrix"), add(h + f"self_attn.{proj}.bias", (c,), "bias")
            add(h + "self_attn_layer_norm.weight", (c,), "gain"), add(h + "self_attn_layer_norm.bias", (c,), "bias")
            add(h + "fc1.weight", (inner, c), "matrix"), add(h + "fc1.bias", (inner,), "bias")
            add(h + "fc2.weight", (c, inner), "matrix"), add(h + "fc2.bias", (c,), "bias")
            add(h + "final_layer_norm.weight", (c,), "gain"), add(h + "final_layer_norm.bias", (c,), "bias")
        add("model.decoder.final_layer_norm.weight", (c,), "gain")
        add("model.decoder.final_layer_norm.bias", (c,), "bias")
        return out  # lm_head is tied: save_pretrained leaves it out
    kv = config.get("num_key_value_heads") or heads
    d = config.get("head_dim") or c // heads
    inner = config["intermediate_size"]
    qkv_bias = config.get("attention_bias", False) or family == "qwen2"
    o_bias = config.get("attention_bias", False) and family != "qwen2"
    mlp_bias = config.get("mlp_bias", False)
    add("model.embed_tokens.weight", (v, c), "embed")
    for l in range(L):
        h = f"model.layers.{l}."
        for proj, rows in (("q_proj", heads * d), ("k_proj", kv * d), ("v_proj", kv * d)):
            add(h + f"self_attn.{proj}.weight", (rows, c), "matrix")
            if qkv_bias:
                add(h + f"self_attn.{proj}.bias", (rows,), "bias")
        add(h + "self_attn.o_proj.weight", (c, heads * d), "matrix")
        if o_bias:
            add(h + "self_attn.o_proj.bias", (c,), "bias")
        if family == "qwen3":
            add(h + "self_attn.q_norm.weight", (d,), "qk_gain"), add(h + "self_attn.k_norm.weight", (d,), "qk_gain")
        for proj, shape in (("gate_proj", (inner, c)), ("up_proj", (inner, c)), ("down_proj", (c, inner))):
            add(h + f"mlp.{proj}.weight", shape, "matrix")
            if mlp_bias:
                add(h + f"mlp.{proj}.bias", (shape[0],), "bias")
        add(h + "input_layernorm.weight", (c,), "gain")
        add(h + "post_attention_layernorm.weight", (c,), "gain")
    add("model.norm.weight", (c,), "gain")
    if not config.get("tie_word_embeddings", False):
        add("lm_head.weight", (v, c), "embed")
    return out


# N(mean, std^2) per kind: non-trivial norm gains and biases, and projections (std 0.25) large enough that
# attention is far from uniform (at the usual 0.02 every head would be nearly uniform and test nothing).
# Qwen3's q/k norms fix each head's q and k to RMS 1 times the gain, so gains near 1 would leave scores of
# std ~1 and nearly flat attention; larger gains (as trained Qwen3 checkpoints have) sharpen it.
_DRAW = {"matrix": (0.0, 0.25), "bias": (0.0, 0.1), "gain": (1.0, 0.1), "embed": (0.0, 0.5), "pos": (0.0, 0.3),
         "qk_gain": (2.0, 0.3)}


def random_tensors(config, dtype):
    """Draws every tensor in float64 in state_dict order from torch's global generator (seed it first) and
    rounds each to the stored dtype: the returned float64 values are exactly what the file holds."""
    tensors = {}
    for name, shape, kind in tensor_shapes(config):
        mean, std = _DRAW[kind]
        value = mean + std * torch.randn(shape, dtype=torch.float64)
        rounded, _ = round_to_stored(value.numpy(), dtype)
        tensors[name] = torch.from_numpy(rounded)
    return tensors


def neox_buffers(config, dtype):
    """The buffers older GPT-NeoX checkpoints (Pythia) carry per layer: the causal mask `attention.bias`
    (BOOL [1, 1, P, P]), `attention.masked_bias` (a scalar) and `attention.rotary_emb.inv_freq` [R/2], all
    ignored by a loader that computes them itself. Returned as raw safetensors entries."""
    p = config["max_position_embeddings"]
    d = config["hidden_size"] // config["num_attention_heads"]
    rot = int(d * config["rotary_pct"])
    inv_freq = 1.0 / (config["rotary_emb_base"] ** (np.arange(0, rot, 2, dtype=np.float64) / rot))
    mask = np.tril(np.ones((p, p), dtype=np.uint8)).reshape(1, 1, p, p)
    entries = []
    for l in range(config["num_hidden_layers"]):
        h = f"gpt_neox.layers.{l}.attention."
        entries.append((h + "bias", "BOOL", mask.shape, mask.tobytes()))
        entries.append((h + "masked_bias", dtype, (), round_to_stored(np.array(-1e9), dtype)[1]))
        entries.append((h + "rotary_emb.inv_freq", dtype, inv_freq.shape, round_to_stored(inv_freq, dtype)[1]))
    return entries


def random_ids(config, windows, seq):
    """Token ids in range; each window starts with the model's BOS, as a tokenizer that adds it would."""
    ids = torch.randint(0, config["vocab_size"], (windows, seq), dtype=torch.int64)
    bos = config.get("bos_token_id")
    if bos is not None and bos < config["vocab_size"]:
        ids[:, 0] = bos
    return ids


def write_checkpoint(folder, config, dtype="F32", shards=1, windows=2, seq=12, with_buffers=False):
    """Draws a random checkpoint (seed torch first), writes the folder (config.json, weights, ids.npy,
    expected.bin with the float64 reference of the stored values, rounded to float32), reads it back and
    checks the round trip. Returns (ids, reference dict)."""
    tensors = random_tensors(config, dtype)
    ids = random_ids(config, windows, seq)
    buffers = neox_buffers(config, dtype) if with_buffers else ()
    write_folder(folder, config, tensors, dtype, shards, buffers)
    np.save(os.path.join(folder, "ids.npy"), ids.numpy())
    config_back, tensors_back = read_folder(folder)
    for name, value in tensors.items():
        if not torch.equal(tensors_back[name], value):
            raise AssertionError(f"{folder}: {name} did not read back bit-identically")
    ref = forward(config_back, tensors_back, ids)
    path = os.path.join(folder, "expected.bin")
    golden_format.write_golden(path, [(k, v.numpy()) for k, v in ref.items()])
    golden_format.read_golden(path)
    return ids, ref


# ----------------------------------------------------------------------------------------------------
# CLI
# ----------------------------------------------------------------------------------------------------


def _cmd_forward(args):
    config, tensors = read_folder(args.dir)
    ids = np.load(args.ids)
    if ids.ndim == 1:
        ids = ids[None, :]
    dtype = {"float32": torch.float32, "float64": torch.float64}[args.dtype]
    ref = forward(config, tensors, torch.from_numpy(ids.astype(np.int64)), dtype)
    np.savez(args.out, **{k: v.numpy() for k, v in ref.items()})
    print(f"{args.out}: " + ", ".join(f"{k} {list(v.shape)}" for k, v in ref.items()))


def _cmd_write_random(args):
    scaling = json.loads(args.rope_scaling) if args.rope_scaling else None
    config = make_config(args.family, hidden=args.hidden, layers=args.layers, heads=args.heads,
                         kv_heads=args.kv_heads, head_dim=args.head_dim, vocab=args.vocab,
                         positions=args.positions, intermediate=args.intermediate, rope_theta=args.rope_theta,
                         untied=args.untied, dtype=args.dtype, rotary_pct=args.rotary_pct,
                         parallel_residual=not args.sequential, sliding_window=args.sliding_window,
                         rope_scaling=scaling,
                         attention_bias=None if args.attention_bias is None else args.attention_bias == "true",
                         mlp_bias=args.mlp_bias)
    torch.manual_seed(args.seed)
    ids, ref = write_checkpoint(args.out, config, args.dtype, args.shards, args.windows, args.seq_len,
                                args.buffers)
    print(summary_line(os.path.basename(os.path.normpath(args.out)), config, ids, ref))


def summary_line(name, config, ids, ref):
    layers = sum(1 for k in ref if k.startswith("probs.layer"))
    key0 = " ".join(f"{ref[f'probs.layer{l}'][..., 0].mean().item():.3f}" for l in range(layers))
    return (f"{name}: {config['model_type']} ids {list(ids.shape)} logits {list(ref['logits'].shape)} "
            f"probs {list(ref['probs.layer0'].shape)} resid {list(ref['resid_post.layer0'].shape)}; "
            f"max |logit| {ref['logits'].abs().max().item():.3f}; mean attention on key 0 per layer {key0}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    f = sub.add_parser("forward", help="reference outputs of a model folder on token ids")
    f.add_argument("dir")
    f.add_argument("--ids", required=True, help=".npy of int ids, [W, T] or [T]")
    f.add_argument("--out", required=True, help=".npz with logits, probs.layer{l}, resid_post.layer{l}")
    f.add_argument("--dtype", choices=("float32", "float64"), default="float64")
    f.set_defaults(run=_cmd_forward)
    w = sub.add_parser("write-random", help="a random checkpoint folder in the Hugging Face layout")
    w.add_argument("--family", required=True, choices=FAMILIES)
    w.add_argument("--out", required=True)
    w.add_argument("--seed", type=int, default=0)
    w.add_argument("--hidden", type=int, default=32)
    w.add_argument("--layers", type=int, default=2)
    w.add_argument("--heads", type=int, default=4)
    w.add_argument("--kv-heads", type=int, default=None)
    w.add_argument("--head-dim", type=int, default=None)
    w.add_argument("--vocab", type=int, default=64)
    w.add_argument("--positions", type=int, default=64, help="max_position_embeddings")
    w.add_argument("--intermediate", type=int, default=None)
    w.add_argument("--rope-theta", type=float, default=None)
    w.add_argument("--rope-scaling", default=None, help='JSON, e.g. {"rope_type": "linear", "factor": 2}')
    w.add_argument("--rotary-pct", type=float, default=0.25, help="gpt_neox")
    w.add_argument("--sequential", action="store_true", help="gpt_neox: use_parallel_residual false")
    w.add_argument("--sliding-window", type=int, default=None, help="mistral")
    w.add_argument("--attention-bias", choices=("true", "false"), default=None,
                   help="attention_bias (llama, qwen3: default false; gpt_neox: default true)")
    w.add_argument("--mlp-bias", action="store_true", help="llama: mlp_bias true")
    w.add_argument("--untied", action="store_true", help="llama family: a separate lm_head")
    w.add_argument("--dtype", choices=STORED_DTYPES, default="F32")
    w.add_argument("--shards", type=int, default=1)
    w.add_argument("--buffers", action="store_true", help="gpt_neox: also write the old mask/rotary buffers")
    w.add_argument("--windows", type=int, default=2)
    w.add_argument("--seq-len", type=int, default=12)
    w.set_defaults(run=_cmd_write_random)
    args = parser.parse_args(argv)
    args.run(args)


if __name__ == "__main__":
    main()


# ----------------------------------------------------------------------------------------------------
# token-by-token decode with a KV cache (bench/open_model_speed.py); added after the rest, changes nothing
# above
# ----------------------------------------------------------------------------------------------------


def _rope_at(x, inv_freq, positions):
    """x [..., N, R] with row n at positions[n] (rotate_half pairs, as apply_rope)."""
    angles = torch.outer(positions.to(x.dtype), inv_freq.to(x.dtype))
    emb = torch.cat((angles, angles), dim=-1)
    return x * emb.cos() + rotate_half(x) * emb.sin()


def _partial_rope_at(x, inv_freq, rotary_dim, positions):
    if rotary_dim == 0:
        return x
    return torch.cat((_rope_at(x[..., :rotary_dim], inv_freq, positions), x[..., rotary_dim:]), dim=-1)


def _cached_attention(q, k, v):
    """q [1, H, 1, D]; k, v [1, KV, L, D]: the one new query against every cached key (all visible)."""
    group = q.shape[1] // k.shape[1]
    k = k.repeat_interleave(group, dim=1)
    v = v.repeat_interleave(group, dim=1)
    probs = ((q @ k.transpose(-1, -2)) / math.sqrt(q.shape[-1])).softmax(dim=-1)
    out = probs @ v
    return out.transpose(1, 2).reshape(1, 1, -1)


def decode_with_cache(config, tensors, ids, dtype=torch.float64, window=None, keep_first=0):
    """Feeds ids [N] (or [1, N]) one token at a time through a KV cache and returns the logits [N, V] of
    every step. The cache holds keys before RoPE and values; a key is rotated by its index in the cache
    (StreamingLLM's positions 0 .. len-1, the query at len-1). With window W, once the cache holds W
    tokens the oldest token after the first keep_first is evicted before the next is added. Without a
    window (or N <= W) every step's logits equal forward()'s row for that position. Families: llama,
    mistral (no sliding window), qwen2, qwen3, gpt_neox."""
    family = config["model_type"]
    ids = torch.as_tensor(ids, dtype=torch.int64).reshape(-1)
    if family == "gpt_neox":
        g = lambda name: _get(tensors, "gpt_neox." + name, dtype)  # noqa: E731
        width, layers, heads = config["hidden_size"], config["num_hidden_layers"], config["num_attention_heads"]
        kv_heads, d = heads, width // heads
        eps = config.get("layer_norm_eps", 1e-5)
        act_fn = gelu_exact if config.get("hidden_act", "gelu") == "gelu" else gelu_new
        rotary_dim = int(d * config.get("rotary_pct", 1.0))
        inv_freq = rope_inv_freq(rotary_dim, config.get("rotary_emb_base", config.get("rope_theta", 10000)), None,
                                 dtype) if rotary_dim else None
        bias = config.get("attention_bias", True)
        head = _get(tensors, "embed_out.weight" if "embed_out.weight" in tensors else "gpt_neox.embed_in.weight",
                    dtype)
        embed = g("embed_in.weight")
    elif family in ("llama", "mistral", "qwen2", "qwen3"):
        if family == "mistral" and config.get("sliding_window") is not None:
            raise ValueError("decode_with_cache: mistral's sliding window is not computed here")
        g = lambda name: _get(tensors, "model." + name, dtype)  # noqa: E731
        width, layers, heads = config["hidden_size"], config["num_hidden_layers"], config["num_attention_heads"]
        kv_heads = config.get("num_key_value_heads") or heads
        d = config.get("head_dim") or width // heads
        eps = config["rms_norm_eps"]
        rotary_dim = d
        inv_freq = rope_inv_freq(d, config.get("rope_theta", 10000.0), config.get("rope_scaling"), dtype)
        qkv_bias = config.get("attention_bias", False) or family == "qwen2"
        o_bias = config.get("attention_bias", False) and family != "qwen2"
        mlp_bias = config.get("mlp_bias", False)
        head = g("embed_tokens.weight") if config.get("tie_word_embeddings", False) else \
            _get(tensors, "lm_head.weight", dtype)
        embed = g("embed_tokens.weight")
    else:
        raise ValueError(f"decode_with_cache: family {family!r} is not computed here")
    keys = [torch.zeros(1, kv_heads, 0, d, dtype=dtype) for _ in range(layers)]
    values = [torch.zeros(1, kv_heads, 0, d, dtype=dtype) for _ in range(layers)]
    logits = []
    for token in ids.tolist():
        if window is not None and keys[0].shape[2] >= window:  # evict the oldest token after the kept ones
            for l in range(layers):
                keys[l] = torch.cat((keys[l][:, :, :keep_first], keys[l][:, :, keep_first + 1:]), dim=2)
                values[l] = torch.cat((values[l][:, :, :keep_first], values[l][:, :, keep_first + 1:]), dim=2)
        x = embed[token].view(1, 1, width)
        length = keys[0].shape[2] + 1
        positions = torch.arange(length)
        for l in range(layers):
            if family == "gpt_neox":
                h = f"layers.{l}."
                a = layer_norm(x, g(h + "input_layernorm.weight"), g(h + "input_layernorm.bias"), eps)
                qkv = linear(a, g(h + "attention.query_key_value.weight"),
                             g(h + "attention.query_key_value.bias") if bias else None)
                qkv = qkv.view(1, 1, heads, 3 * d).transpose(1, 2)
                q, k, v = qkv[..., :d], qkv[..., d:2 * d], qkv[..., 2 * d:]
            else:
                h = f"layers.{l}."
                ob = lambda name, on: g(h + name) if on else None  # noqa: E731
                a = rms_norm(x, g(h + "input_layernorm.weight"), eps)
                q = split_heads(linear(a, g(h + "self_attn.q_proj.weight"), ob("self_attn.q_proj.bias", qkv_bias)),
                                heads, d)
                k = split_heads(linear(a, g(h + "self_attn.k_proj.weight"), ob("self_attn.k_proj.bias", qkv_bias)),
                                kv_heads, d)
                v = split_heads(linear(a, g(h + "self_attn.v_proj.weight"), ob("self_attn.v_proj.bias", qkv_bias)),
                                kv_heads, d)
                if family == "qwen3":
                    q = rms_norm(q, g(h + "self_attn.q_norm.weight"), eps)
                    k = rms_norm(k, g(h + "self_attn.k_norm.weight"), eps)
            keys[l] = torch.cat((keys[l], k), dim=2)
            values[l] = torch.cat((values[l], v), dim=2)
            q = _partial_rope_at(q, inv_freq, rotary_dim, positions[-1:])
            k_rot = _partial_rope_at(keys[l], inv_freq, rotary_dim, positions)
            o = _cached_attention(q, k_rot, values[l])
            if family == "gpt_neox":
                attn = linear(o, g(h + "attention.dense.weight"), g(h + "attention.dense.bias") if bias else None)
                ln2 = layer_norm(x if config.get("use_parallel_residual", True) else x + attn,
                                 g(h + "post_attention_layernorm.weight"), g(h + "post_attention_layernorm.bias"), eps)
                m = act_fn(linear(ln2, g(h + "mlp.dense_h_to_4h.weight"), g(h + "mlp.dense_h_to_4h.bias")))
                x = x + attn + linear(m, g(h + "mlp.dense_4h_to_h.weight"), g(h + "mlp.dense_4h_to_h.bias"))
            else:
                x = x + linear(o, g(h + "self_attn.o_proj.weight"), ob("self_attn.o_proj.bias", o_bias))
                m = rms_norm(x, g(h + "post_attention_layernorm.weight"), eps)
                gate = linear(m, g(h + "mlp.gate_proj.weight"), ob("mlp.gate_proj.bias", mlp_bias))
                up = linear(m, g(h + "mlp.up_proj.weight"), ob("mlp.up_proj.bias", mlp_bias))
                x = x + linear(silu(gate) * up, g(h + "mlp.down_proj.weight"), ob("mlp.down_proj.bias", mlp_bias))
        if family == "gpt_neox":
            x = layer_norm(x, g("final_layer_norm.weight"), g("final_layer_norm.bias"), eps)
        else:
            x = rms_norm(x, g("norm.weight"), eps)
        logits.append(linear(x, head).reshape(-1))
    return torch.stack(logits)
