#!/usr/bin/env python3
"""Writes tests/fixtures/open_models/<name>/: tiny random checkpoints of open LM families in the exact
Hugging Face layout, with what the hand-written twin (tools/open_models_twin.py) computes on them.

Usage: python3 tools/write_open_model_fixtures.py [--out-dir DIR] [--only NAME,...]

Each folder holds config.json (the family's real keys), the weights (model.safetensors, or shards with
model.safetensors.index.json) under the Hugging Face tensor names with __metadata__ {"format": "pt"},
ids.npy (int64 [2, T], each window starting with the model's BOS id) and expected.bin (SLGOLD01,
docs/golden.md): "logits" [2, T, V], "probs.layer{l}" [2, H, T, T], "resid_post.layer{l}" [2, T, C].

As the other golden fixtures: torch.manual_seed fixed per fixture, every tensor drawn in float64 and
rounded once to the STORED dtype (F32, F16 or BF16), the reference computed in float64 from the stored
values and written as float32. Two runs give byte-identical files.

Before writing, the twin is checked against what is known independently of it (see self_checks): the
committed GPT-2 fixture (written by tools/write_gpt2_fixture.py), a loop-by-loop attention with explicit
masks and head mapping, RoPE written pair by pair, and the families' equivalences (GQA with repeated
kv heads = MHA, Qwen2 with zero biases = Llama, Mistral with a window >= T = Llama, NeoX rotary_pct 1 =
full RoPE). One line per fixture is printed.
"""
import argparse
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import open_models_twin as twin  # noqa: E402  (imports torch, re-running under Debian's python3 if needed)

import golden_format  # noqa: E402

torch = twin.torch
np = twin.np

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_OUT = os.path.join(HERE, "..", "tests", "fixtures", "open_models")
GPT2_FIXTURE = os.path.join(HERE, "..", "tests", "fixtures", "gpt2")

LLAMA3_SCALING = {"factor": 8.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
                  "original_max_position_embeddings": 256, "rope_type": "llama3"}

# name -> (make_config keyword arguments, stored dtype, shards, T, NeoX buffers). Sizes vary between
# fixtures on purpose (vocabularies, GQA ratios, head_dim) so a loader that hard-codes one of them fails.
FIXTURES = {
    # Pythia's layout: parallel residual, rotary on the first int(8 * 0.25) = 2 dims of each head, fused
    # qkv, untied embed_out, and the old buffers (bias, masked_bias, rotary_emb.inv_freq) to be ignored.
    "gpt_neox": (dict(family="gpt_neox", hidden=32, heads=4, vocab=64, positions=32, intermediate=128,
                      rotary_pct=0.25, parallel_residual=True), "F32", 1, 12, True),
    # Sequential residual, rotary on 4 of 8 dims (so the (i, i + R/2) pairing inside a partial rotary
    # shows), F16 storage.
    "gpt_neox_sequential": (dict(family="gpt_neox", hidden=32, heads=4, vocab=72, positions=32, intermediate=128,
                                 rotary_pct=0.5, parallel_residual=False), "F16", 1, 12, False),
    # Llama-2 / TinyLlama: GQA 4 query heads on 2 kv heads, untied lm_head, theta 10000, two shards.
    "llama": (dict(family="llama", hidden=32, heads=4, kv_heads=2, vocab=80, positions=64, intermediate=64,
                   rope_theta=10000.0, untied=True), "F32", 2, 12, False),
    # Llama-3.2: rope_scaling llama3 (original 256 puts head_dim 8's four frequencies in all three regimes:
    # unchanged, smoothed, divided by 8), theta 500000, tied embeddings, one kv head (ratio 4), BF16.
    "llama3": (dict(family="llama", hidden=32, heads=4, kv_heads=1, vocab=96, positions=2048, intermediate=64,
                    rope_theta=500000.0, rope_scaling=LLAMA3_SCALING), "BF16", 1, 12, False),
    # Mistral-7B: sliding window 5 over T 14 (queries from 5 on lose their first keys), untied, F16.
    "mistral": (dict(family="mistral", hidden=32, heads=4, kv_heads=2, vocab=64, positions=64, intermediate=64,
                     rope_theta=10000.0, untied=True, sliding_window=5), "F16", 1, 14, False),
    # Qwen2.5: q/k/v biases (no o_proj bias), tied, theta 1e6, BF16.
    "qwen2": (dict(family="qwen2", hidden=32, heads=4, kv_heads=2, vocab=72, positions=64, intermediate=64,
                   rope_theta=1000000.0), "BF16", 1, 12, False),
    # Qwen3: q_norm/k_norm before RoPE, head_dim 16 with hidden 32 and 4 heads (H*D = 64 != C), kv 2, tied.
    "qwen3": (dict(family="qwen3", hidden=32, heads=4, kv_heads=2, head_dim=16, vocab=80, positions=64,
                   intermediate=64, rope_theta=1000000.0), "F32", 1, 16, False),
    # OPT: learned positions read at t + 2, ReLU MLP, pre-LN, biases everywhere, tied lm_head.
    "opt": (dict(family="opt", hidden=32, heads=4, vocab=64, positions=32, intermediate=128), "F32", 1, 12, False),
}
WINDOWS = 2


# ----------------------------------------------------------------------------------------------------
# self-checks: the twin against references written independently of its vectorized code
# ----------------------------------------------------------------------------------------------------


def naive_attention(q, k, v, window=None):
    """Query by query, head by head, with the mask and the GQA mapping written out as loops."""
    w_, heads, seq, d = q.shape
    kv_heads = k.shape[1]
    probs = torch.zeros(w_, heads, seq, seq, dtype=q.dtype)
    out = torch.zeros(w_, seq, heads * d, dtype=q.dtype)
    for b in range(w_):
        for h in range(heads):
            g = h // (heads // kv_heads)
            for i in range(seq):
                keys = [j for j in range(seq) if j <= i and (window is None or j > i - window)]
                s = torch.stack([q[b, h, i] @ k[b, g, j] / math.sqrt(d) for j in keys])
                a = torch.exp(s - s.max())
                a = a / a.sum()
                for n, j in enumerate(keys):
                    probs[b, h, i, j] = a[n]
                    out[b, i, h * d:(h + 1) * d] += a[n] * v[b, g, j]
    return out, probs


def naive_rope(x, inv_freq):
    """RoPE pair by pair: dim i with dim i + R/2, rotated by t * inv_freq[i]."""
    out = x.clone()
    half = x.shape[-1] // 2
    for t in range(x.shape[-2]):
        for i in range(half):
            c, s = math.cos(t * inv_freq[i].item()), math.sin(t * inv_freq[i].item())
            a, b = x[..., t, i], x[..., t, i + half]
            out[..., t, i] = a * c - b * s
            out[..., t, i + half] = b * c + a * s
    return out


def max_diff(a, b):
    return max((a[k] - b[k]).abs().max().item() for k in a)


def check(condition, message):
    if not condition:
        raise AssertionError("self-check failed: " + message)
    print("  ok  " + message)


def self_checks():
    print("self-checks:")
    # 1. The committed GPT-2 fixture, written by another script.
    config, tensors = twin.read_folder(GPT2_FIXTURE)
    ids = torch.from_numpy(np.load(os.path.join(GPT2_FIXTURE, "ids.npy")))
    ref = twin.forward(config, tensors, ids)
    gold = golden_format.read_golden(os.path.join(GPT2_FIXTURE, "expected.bin"))
    err = max(np.abs(ref[k].numpy() - v).max() for k, v in gold.items())
    check(err < 1e-5, f"GPT-2 twin reproduces tests/fixtures/gpt2/expected.bin (max abs diff {err:.1e} < 1e-5)")

    gen = torch.Generator().manual_seed(1234)
    rnd = lambda *shape: torch.randn(*shape, generator=gen, dtype=torch.float64)  # noqa: E731

    # 2. Attention: masks and GQA mapping against loops.
    q, k, v = rnd(2, 6, 9, 4), rnd(2, 2, 9, 4), rnd(2, 2, 9, 4)
    for window in (None, 3):
        o1, p1 = twin.attention(q, k, v, window)
        o2, p2 = naive_attention(q, k, v, window)
        err = max((o1 - o2).abs().max().item(), (p1 - p2).abs().max().item())
        check(err < 1e-12, f"attention (6 heads on 2 kv heads, window {window}) equals the loop version ({err:.1e})")

    # 3. RoPE: rotate_half pairing against pair-by-pair rotation; NeoX partial with rotary_pct 1 = full.
    x = rnd(2, 3, 7, 8)
    inv = twin.rope_inv_freq(8, 10000.0, None, torch.float64)
    err = (twin.apply_rope(x, inv) - naive_rope(x, inv)).abs().max().item()
    check(err < 1e-12, f"RoPE equals pair (i, i + R/2) rotation ({err:.1e})")
    err = (twin.apply_partial_rope(x, inv, 8) - twin.apply_rope(x, inv)).abs().max().item()
    check(err == 0.0, "partial rotary with rotary_dim = head_dim equals full RoPE")
    inv4 = twin.rope_inv_freq(4, 10000.0, None, torch.float64)
    part = twin.apply_partial_rope(x, inv4, 4)
    err = max((part[..., :4] - naive_rope(x[..., :4], inv4)).abs().max().item(),
              (part[..., 4:] - x[..., 4:]).abs().max().item())
    check(err < 1e-12, f"partial rotary rotates the first R dims pairwise and passes the rest ({err:.1e})")
    # Scores after RoPE depend on relative position only: a shifted pair of positions gives the same q.k.
    qv, kv_ = rnd(8), rnd(8)
    seq = torch.zeros(1, 1, 10, 8, dtype=torch.float64)
    seq[0, 0, 2], seq[0, 0, 5] = qv, kv_
    seqk = torch.zeros_like(seq)
    seqk[0, 0, 6], seqk[0, 0, 9] = qv, kv_
    a, b = twin.apply_rope(seq, inv), twin.apply_rope(seqk, inv)
    err = abs((a[0, 0, 5] @ a[0, 0, 2]) - (b[0, 0, 9] @ b[0, 0, 6])).item()
    check(err < 1e-12, f"RoPE scores depend on relative position only ({err:.1e})")

    # 4. Family equivalences on whole models.
    def model(family, seed, **kw):
        config = twin.make_config(family, hidden=32, heads=4, vocab=40, positions=32, intermediate=48, **kw)
        torch.manual_seed(seed)
        return config, twin.random_tensors(config, "F32")

    ids = torch.randint(0, 40, (2, 10), generator=gen)
    cfg_gqa, w_gqa = model("llama", 1, kv_heads=2, untied=True)
    cfg_mha, _ = model("llama", 1, kv_heads=4, untied=True)
    w_mha = dict(w_gqa)
    d = 8
    for l in range(2):
        for proj in ("k_proj", "v_proj"):
            name = f"model.layers.{l}.self_attn.{proj}.weight"
            # kv head g serves query heads 2g and 2g + 1: repeat its rows for each of them.
            w_mha[name] = torch.cat([w_gqa[name][(h // 2) * d:(h // 2 + 1) * d] for h in range(4)])
    err = max_diff(twin.forward(cfg_gqa, w_gqa, ids), twin.forward(cfg_mha, w_mha, ids))
    check(err < 1e-12, f"GQA (4 heads, 2 kv heads) equals MHA with each kv head's rows repeated ({err:.1e})")
    w_wrong = dict(w_gqa)
    for l in range(2):
        for proj in ("k_proj", "v_proj"):
            name = f"model.layers.{l}.self_attn.{proj}.weight"
            w_wrong[name] = torch.cat([w_gqa[name][(h % 2) * d:(h % 2 + 1) * d] for h in range(4)])
    err = max_diff(twin.forward(cfg_gqa, w_gqa, ids), twin.forward(cfg_mha, w_wrong, ids))
    check(err > 1e-3, f"... and differs from the h % KV mapping ({err:.2f})")

    cfg_q2, w_llama = model("qwen2", 2, kv_heads=2)
    cfg_l = dict(cfg_q2, model_type="llama")
    w_q2 = dict(w_llama)
    for l in range(2):
        for proj, rows in (("q_proj", 32), ("k_proj", 16), ("v_proj", 16)):
            w_q2[f"model.layers.{l}.self_attn.{proj}.bias"] = torch.zeros(rows, dtype=torch.float64)
    w_llama = {k: v for k, v in w_llama.items() if not k.endswith("_proj.bias")}
    err = max_diff(twin.forward(cfg_q2, w_q2, ids), twin.forward(cfg_l, w_llama, ids))
    check(err == 0.0, "qwen2 with zero q/k/v biases equals llama")

    cfg_m, w_m = model("mistral", 3, kv_heads=2, untied=True, sliding_window=10)
    ref_l = twin.forward(dict(cfg_m, model_type="llama"), w_m, ids)
    err = max_diff(twin.forward(cfg_m, w_m, ids), ref_l)
    check(err == 0.0, "mistral with sliding_window >= T equals llama")
    err = max_diff(twin.forward(dict(cfg_m, sliding_window=9), w_m, ids), ref_l)
    check(err > 1e-3, f"... and a window of T - 1 changes the last query ({err:.2f})")

    # 5. llama3 scaling: the fixture's frequencies fall in all three regimes (else the fixture tests less).
    d = 8
    base = twin.rope_inv_freq(d, 500000.0, None, torch.float64)
    scaled = twin.rope_inv_freq(d, 500000.0, LLAMA3_SCALING, torch.float64)
    ratio = (base / scaled).tolist()
    unchanged = sum(abs(r - 1) < 1e-12 for r in ratio)
    divided = sum(abs(r - LLAMA3_SCALING["factor"]) < 1e-9 for r in ratio)
    check(unchanged >= 1 and divided >= 1 and unchanged + divided < d // 2,
          "llama3 fixture frequencies: base / scaled = " + ", ".join(f"{r:.3f}" for r in ratio) +
          " (unchanged, smoothed and divided by the factor)")


# ----------------------------------------------------------------------------------------------------


def write_fixture(out_dir, name, index):
    kwargs, dtype, shards, seq, buffers = FIXTURES[name]
    family = kwargs.pop("family")
    config = twin.make_config(family, dtype=dtype, **kwargs)
    kwargs["family"] = family
    folder = os.path.join(out_dir, name)
    torch.manual_seed(100 + index)
    ids, ref = twin.write_checkpoint(folder, config, dtype, shards, WINDOWS, seq, buffers)
    if name == "mistral":  # the window must actually cut keys in the stored reference
        w = config["sliding_window"]
        p = ref["probs.layer0"]
        i, j = torch.meshgrid(torch.arange(seq), torch.arange(seq), indexing="ij")
        check(bool((p[..., (i - j) >= w] == 0).all()) and bool((p[..., (i - j) == w - 1] > 0).all()),
              f"mistral: keys with i - j >= {w} get weight 0, i - j = {w - 1} does not")
    layers = config.get("num_hidden_layers")
    rowmax = np.mean([ref[f"probs.layer{l}"][..., 1:, :].max(dim=-1).values.mean().item() for l in range(layers)])
    print(twin.summary_line(name, config, ids, ref) + f"; mean row max {rowmax:.3f}; {dtype}, {shards} file(s)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out-dir", default=DEFAULT_OUT)
    parser.add_argument("--only", default=None, help="comma-separated fixture names (default: all)")
    args = parser.parse_args()
    names = list(FIXTURES) if args.only is None else args.only.split(",")
    for n in names:
        if n not in FIXTURES:
            sys.exit(f"error: unknown fixture {n!r}; one of {', '.join(FIXTURES)}")
    self_checks()
    for index, name in enumerate(FIXTURES):  # the index (and so the seed) does not depend on --only
        if name in names:
            write_fixture(args.out_dir, name, index)
    total = sum(os.path.getsize(os.path.join(root, f)) for root, _, files in os.walk(args.out_dir) for f in files)
    print(f"{os.path.normpath(args.out_dir)}: {total} bytes in all")


if __name__ == "__main__":
    main()
