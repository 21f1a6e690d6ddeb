"""The PyTorch reference models shared by make_golden.py (in float64) and torch_twin.py (float32).

Parameter names follow the C++ framework's dotted names (blocks.{l}.attn.w_q.weight, ...), so a
golden file's `param.<name>` / `grad.<name>` entries map one-to-one onto sinklab parameters.
Attention is written by hand with batched matmuls (no nn.MultiheadAttention, no fused kernels).
"""
import math

import torch
from torch import nn

NORMALIZERS = ("softmax", "relu")
# Zoo normalizers with a virtual slot, a learned per-head scalar or exact zeros: zoo_probs() below.
SLOT_SCALE_PICK_NORMALIZERS = ("softmax_n", "sink_logit", "ssmax", "softpick")
NORMALIZERS += SLOT_SCALE_PICK_NORMALIZERS
# Gu et al.'s normalized elu+1: sinklab's elu1 with divisor row_sum.
NORMALIZERS += ("elu1",)


class CausalSelfAttention(nn.Module):
    """q, k, v projections -> scores (times `scale`) -> causal mask -> normalizer -> probs @ v -> w_o.

    softmax: softmax over the visible keys k <= i.
    relu:    a_ik = relu(s_ik) / max(i, 1) for k <= i, else 0 (i is the number of non-BOS keys row i
             sees; row 0 is divided by 1), as in the trigger-sinks paper.
    elu1:    a_ik = (elu(s_ik) + 1) / sum_{j <= i} (elu(s_ij) + 1) for k <= i, else 0 (divisor row_sum).
    """

    def __init__(self, d_model, n_heads, d_head, normalizer, scale, bias, rope=False):
        super().__init__()
        self.rope = rope
        if normalizer not in NORMALIZERS:
            raise ValueError(f"unknown normalizer {normalizer!r}; expected one of {NORMALIZERS}")
        self.n_heads, self.d_head = n_heads, d_head
        self.normalizer, self.scale = normalizer, scale
        width = n_heads * d_head
        self.w_q = nn.Linear(d_model, width, bias=bias)
        self.w_k = nn.Linear(d_model, width, bias=bias)
        self.w_v = nn.Linear(d_model, width, bias=bias)
        self.w_o = nn.Linear(width, d_model, bias=bias)
        self.record_probs = False
        self.last_probs = None  # [B, H, T, T] when record_probs is set
        add_head_scalars(self, normalizer, n_heads)

    def _split_heads(self, t):
        batch, seq, _ = t.shape
        return t.view(batch, seq, self.n_heads, self.d_head).transpose(1, 2)

    def forward(self, x):
        batch, seq, _ = x.shape
        q = self._split_heads(self.w_q(x))
        k = self._split_heads(self.w_k(x))
        v = self._split_heads(self.w_v(x))
        if self.rope:
            q, k = rotary(q), rotary(k)
        scores = torch.matmul(q, k.transpose(-1, -2))
        if self.scale != 1.0:
            scores = scores * self.scale
        visible = torch.ones(seq, seq, dtype=torch.bool, device=x.device).tril()
        if self.normalizer in SLOT_SCALE_PICK_NORMALIZERS:
            probs = zoo_probs(self, scores, visible)
        elif self.normalizer == "elu1":
            f = (torch.nn.functional.elu(scores) + 1.0).masked_fill(~visible, 0.0)
            probs = f / f.sum(dim=-1, keepdim=True)
        elif self.normalizer == "softmax":
            probs = scores.masked_fill(~visible, float("-inf")).softmax(dim=-1)
        else:
            count = torch.arange(seq, device=x.device, dtype=x.dtype).clamp(min=1).unsqueeze(-1)
            probs = torch.relu(scores).masked_fill(~visible, 0.0) / count
        if self.record_probs:
            self.last_probs = probs.detach()
        out = torch.matmul(probs, v).transpose(1, 2).reshape(batch, seq, -1)
        return self.w_o(out)


def rotary(x, base=10000.0):
    """layers/rotary_embedding.h: x [..., T, D]; the pair (2j, 2j+1) at position t is rotated by t * base^(-2j/D)."""
    seq, width = x.shape[-2], x.shape[-1]
    inv_freq = base ** (-torch.arange(0, width, 2, dtype=x.dtype, device=x.device) / width)
    angle = torch.arange(seq, dtype=x.dtype, device=x.device).unsqueeze(-1) * inv_freq  # [T, D/2]
    cos, sin = torch.cos(angle), torch.sin(angle)
    even, odd = x[..., 0::2], x[..., 1::2]
    return torch.stack((even * cos - odd * sin, even * sin + odd * cos), dim=-1).flatten(-2)


def add_head_scalars(attn, normalizer, n_heads):
    """The learned per-head scalars, named as sinklab's `<attn>.<param_name>` [heads, 1]."""
    if normalizer == "sink_logit":
        attn.sink_logit = nn.Parameter(torch.zeros(n_heads, 1))
    elif normalizer == "ssmax":
        attn.ssmax_scale = nn.Parameter(torch.full((n_heads, 1), 0.43))


def zoo_probs(attn, scores, visible):
    """Attention weights [B, H, T, T] of the zoo normalizers with their default options.

    softmax_n (n = 1): e^{s-m} / (e^{-m} + sum e^{s-m}), m = max(0, max s).
    sink_logit: softmax over [S_h, s_0..s_i] with the slot's weight dropped.
    ssmax: softmax(s_h ln(i + 1) s).
    softpick (eps = 1e-8): u = e^{s-m} - e^{-m}, m = max s; relu(u) / (sum |u| + eps).
    """
    minus_inf = float("-inf")
    masked = scores.masked_fill(~visible, minus_inf)
    if attn.normalizer == "softmax_n":
        m = masked.amax(dim=-1, keepdim=True).clamp(min=0.0)
        e = torch.exp(masked - m)
        return e / (torch.exp(-m) + e.sum(dim=-1, keepdim=True))
    if attn.normalizer == "sink_logit":
        batch, heads, seq, _ = scores.shape
        sink = attn.sink_logit.view(1, heads, 1, 1).expand(batch, heads, seq, 1)
        return torch.cat([sink, masked], dim=-1).softmax(dim=-1)[..., 1:]
    if attn.normalizer == "ssmax":
        seq = scores.shape[-1]
        log_n = torch.log(torch.arange(1, seq + 1, device=scores.device, dtype=scores.dtype)).view(1, 1, seq, 1)
        scale = attn.ssmax_scale.view(1, -1, 1, 1) * log_n
        return (scale * scores).masked_fill(~visible, minus_inf).softmax(dim=-1)
    # softpick
    m = masked.amax(dim=-1, keepdim=True)
    u = (torch.exp(masked - m) - torch.exp(-m)).masked_fill(~visible, 0.0)
    return torch.relu(u) / (u.abs().sum(dim=-1, keepdim=True) + 1e-8)


class AttnOnlyBlock(nn.Module):
    def __init__(self, d_model, n_heads, normalizer):
        super().__init__()
        # The paper's heads are full width (d_head = d_model) and its logits are unscaled.
        self.attn = CausalSelfAttention(d_model, n_heads, d_model, normalizer, 1.0, bias=False)

    def forward(self, x):
        return self.attn(x)


class AttnOnlyModel(nn.Module):
    """The paper's model: attention-only, bias-free, no LN/MLP/positions.

    residual=True: x <- x + attn_l(x) for every layer; residual=False (the 1-layer runs): out = attn(x).
    """

    def __init__(self, n_layers, n_heads, d_model, normalizer, residual):
        super().__init__()
        if not residual and n_layers != 1:
            raise ValueError("a model without residual connections has exactly one layer")
        self.residual = residual
        self.blocks = nn.ModuleList(AttnOnlyBlock(d_model, n_heads, normalizer)
                                    for _ in range(n_layers))

    def forward(self, x):
        for block in self.blocks:
            out = block(x)
            x = x + out if self.residual else out
        return x


class Mlp(nn.Module):
    def __init__(self, d_model, d_hidden):
        super().__init__()
        self.fc1 = nn.Linear(d_model, d_hidden)
        self.fc2 = nn.Linear(d_hidden, d_model)

    def forward(self, x):
        # Exact (erf) GELU, torch's default.
        return self.fc2(nn.functional.gelu(self.fc1(x)))


class PreNormBlock(nn.Module):
    def __init__(self, d_model, n_heads, d_head, d_hidden, eps, rope=False):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model, eps=eps)
        self.attn = CausalSelfAttention(d_model, n_heads, d_head, "softmax",
                                        1.0 / math.sqrt(d_head), bias=True, rope=rope)
        self.ln2 = nn.LayerNorm(d_model, eps=eps)
        self.mlp = Mlp(d_model, d_hidden)

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.mlp(self.ln2(x))


class PreNormModel(nn.Module):
    """Conventional pre-LN transformer: blocks, then a final LayerNorm.

    With d_io set, an input Linear d_io -> d_model (`in_proj`) and an output Linear d_model -> d_io
    (`out_proj`) wrap the stack, so a d_io-dimensional task can drive a wider model.
    """

    def __init__(self, n_layers, d_model, n_heads, d_head, d_hidden, eps=1e-5, d_io=None):
        super().__init__()
        self.in_proj = nn.Linear(d_io, d_model) if d_io is not None else None
        self.blocks = nn.ModuleList(PreNormBlock(d_model, n_heads, d_head, d_hidden, eps)
                                    for _ in range(n_layers))
        self.final_norm = nn.LayerNorm(d_model, eps=eps)
        self.out_proj = nn.Linear(d_model, d_io) if d_io is not None else None

    def forward(self, x):
        if self.in_proj is not None:
            x = self.in_proj(x)
        for block in self.blocks:
            x = block(x)
        x = self.final_norm(x)
        return self.out_proj(x) if self.out_proj is not None else x


class TokenLmModel(nn.Module):
    """A token language model laid out as layers/transformer.cpp builds one: token embedding plus
    learned positions (or rotary positions in every attention, rope=True), pre-LN blocks (PreNormBlock),
    final LayerNorm, then the output head to logits. tie_embeddings=True (model.tie_embeddings, GPT-2's
    lm_head): logits = h E^T with the token embedding E, no head parameters and no bias.

    Parameter names match sinklab's (embedding.weight, pos_embedding.weight [max_seq_len, d],
    blocks.{l}.*, final_norm.*, output_head.*), so the two parameter counts compare one to one.
    """

    def __init__(self, vocab_size, max_seq_len, n_layers, d_model, n_heads, d_head, d_hidden, eps=1e-5, rope=False,
                 tie_embeddings=False):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, d_model)
        # only its weight rows 0..T-1 are read
        self.pos_embedding = None if rope else nn.Embedding(max_seq_len, d_model)
        self.blocks = nn.ModuleList(PreNormBlock(d_model, n_heads, d_head, d_hidden, eps, rope=rope)
                                    for _ in range(n_layers))
        self.final_norm = nn.LayerNorm(d_model, eps=eps)
        self.output_head = None if tie_embeddings else nn.Linear(d_model, vocab_size)

    def forward(self, ids):
        """ids [B, T] (int64) -> logits [B, T, vocab]."""
        x = self.embedding(ids)
        if self.pos_embedding is not None:
            x = x + self.pos_embedding.weight[:ids.shape[1]]
        for block in self.blocks:
            x = block(x)
        h = self.final_norm(x)
        if self.output_head is None:
            return torch.matmul(h, self.embedding.weight.t())  # [B, T, d] x [d, V], as layers/transformer.cpp
        return self.output_head(h)


def attention_modules(model):
    """The attention modules in layer order (for recording probs)."""
    return [block.attn for block in model.blocks]


# --- sparsemax, entmax15, gated attention and the key-bias token --------------------------------
# Row-by-row attention for normalizers that need a sort per row, with the two attention options that
# change more than the rows: an output gate (gated_softmax) and the key-bias token (key_bias).

ZOO_NORMALIZERS = ("softmax", "sparsemax", "entmax15", "gated_softmax")


def sparsemax_row(s):
    """max(s - tau, 0) over the last dim, tau = (sum of the top k* - 1) / k*; autograd through tau."""
    z, _ = torch.sort(s, dim=-1, descending=True)
    k = torch.arange(1, s.shape[-1] + 1, dtype=s.dtype, device=s.device)
    cumulative = z.cumsum(dim=-1)
    support = (1 + k * z > cumulative).sum(dim=-1, keepdim=True)
    tau = (cumulative.gather(-1, support - 1) - 1) / support.to(s.dtype)
    return torch.clamp(s - tau, min=0)


def entmax15_row(s):
    """max(z - tau, 0)^2 with z = (s - max s) / 2, tau by the sorted closed form (Peters et al. 2019)."""
    z = (s - s.max(dim=-1, keepdim=True).values) / 2
    zs, _ = torch.sort(z, dim=-1, descending=True)
    k = torch.arange(1, s.shape[-1] + 1, dtype=s.dtype, device=s.device)
    mean = zs.cumsum(dim=-1) / k
    mean_sq = (zs ** 2).cumsum(dim=-1) / k
    delta = (1 - k * (mean_sq - mean ** 2)) / k
    tau = mean - torch.sqrt(torch.clamp(delta, min=0))
    support = (tau <= zs).sum(dim=-1, keepdim=True)
    return torch.clamp(z - tau.gather(-1, support - 1), min=0) ** 2


def zoo_row(normalizer, s):
    if normalizer == "sparsemax":
        return sparsemax_row(s)
    if normalizer == "entmax15":
        return entmax15_row(s)
    return s.softmax(dim=-1)  # softmax, gated_softmax


class ZooSelfAttention(nn.Module):
    """Causal attention whose rows are normalized one at a time over the visible keys k <= i.

    gated_softmax: softmax rows; each head's output times sigmoid(x W_g^T) before w_o, W_g = `gate`
                   [n_heads, d_model] (one gate per head and query).
    key_bias:      a learned key k*_h per head (`key_bias` [n_heads, d_head]) with value 0: row i is
                   normalized as [scale * q_i . k*_h, s_i0 .. s_ii]; probs are the weights on real keys.
    """

    def __init__(self, d_model, n_heads, d_head, normalizer, scale, bias, key_bias=False):
        super().__init__()
        if normalizer not in ZOO_NORMALIZERS:
            raise ValueError(f"unknown normalizer {normalizer!r}; expected one of {ZOO_NORMALIZERS}")
        self.n_heads, self.d_head = n_heads, d_head
        self.normalizer, self.scale = normalizer, scale
        width = n_heads * d_head
        self.w_q = nn.Linear(d_model, width, bias=bias)
        self.w_k = nn.Linear(d_model, width, bias=bias)
        self.w_v = nn.Linear(d_model, width, bias=bias)
        self.w_o = nn.Linear(width, d_model, bias=bias)
        self.gate = nn.Linear(d_model, n_heads, bias=bias) if normalizer == "gated_softmax" else None
        self.key_bias = nn.Parameter(torch.zeros(n_heads, d_head)) if key_bias else None
        self.record_probs = False
        self.last_probs = None  # [B, H, T, T] when record_probs is set

    def _split_heads(self, t):
        batch, seq, _ = t.shape
        return t.view(batch, seq, self.n_heads, self.d_head).transpose(1, 2)

    def forward(self, x):
        batch, seq, _ = x.shape
        q = self._split_heads(self.w_q(x))
        k = self._split_heads(self.w_k(x))
        v = self._split_heads(self.w_v(x))
        scores = torch.matmul(q, k.transpose(-1, -2)) * self.scale
        slot = None
        if self.key_bias is not None:
            slot = torch.einsum("bhtd,hd->bht", q, self.key_bias) * self.scale
        rows = []
        for i in range(seq):
            row = scores[..., i, :i + 1]
            if slot is not None:
                row = torch.cat([slot[..., i:i + 1], row], dim=-1)
            a = zoo_row(self.normalizer, row)
            if slot is not None:
                a = a[..., 1:]  # the slot's value is 0: its weight reaches no output
            rows.append(nn.functional.pad(a, (0, seq - i - 1)))
        probs = torch.stack(rows, dim=-2)
        if self.record_probs:
            self.last_probs = probs.detach()
        heads = torch.matmul(probs, v)  # [B, H, T, D]
        if self.gate is not None:
            heads = heads * torch.sigmoid(self.gate(x)).transpose(1, 2).unsqueeze(-1)
        return self.w_o(heads.transpose(1, 2).reshape(batch, seq, -1))


class ZooAttnOnlyBlock(nn.Module):
    def __init__(self, d_model, n_heads, normalizer, key_bias):
        super().__init__()
        self.attn = ZooSelfAttention(d_model, n_heads, d_model, normalizer, 1.0, bias=False, key_bias=key_bias)

    def forward(self, x):
        return self.attn(x)


class ZooAttnOnlyModel(nn.Module):
    """The paper's residual attention-only model (AttnOnlyModel) with a ZooSelfAttention per layer."""

    def __init__(self, n_layers, n_heads, d_model, normalizer, key_bias=False):
        super().__init__()
        self.blocks = nn.ModuleList(ZooAttnOnlyBlock(d_model, n_heads, normalizer, key_bias)
                                    for _ in range(n_layers))

    def forward(self, x):
        for block in self.blocks:
            x = x + block(x)
        return x
