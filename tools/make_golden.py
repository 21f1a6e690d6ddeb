#!/usr/bin/env python3
"""Writes the PyTorch golden fixtures tests/fixtures/golden/*.bin (format and conventions: docs/golden.md).

Usage: python3 tools/make_golden.py [--out-dir DIR]

Each case starts from torch.manual_seed(0). Parameters, input and target are drawn in float64, rounded
to float32 (what the file stores, so the C++ side starts from exactly the same numbers), and every
reference (output, loss, gradients, probs, Adam losses) is computed in float64 from those values.
"""
import argparse
import copy
import os
import sys

from torch_import import import_torch

torch = import_torch()
import golden_format  # noqa: E402
import models  # noqa: E402

BATCH, SEQ, DIM = 3, 8, 16
ADAM = dict(lr=1e-2, betas=(0.9, 0.95), eps=1e-8, weight_decay=0.0)
ADAM_STEPS = 3
DEFAULT_OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures", "golden")


def to_float32_grid(t):
    """Rounds a float64 tensor to the nearest float32 and back, so references see the stored values."""
    return t.float().double()


def init_normal(param, mean, std):
    with torch.no_grad():
        param.copy_(to_float32_grid(mean + std * torch.randn(param.shape, dtype=torch.float64)))


def init_attn_only(model):
    for _, p in model.named_parameters():
        init_normal(p, 0.0, 0.3)  # far from the paper's 0.02, so attention is far from uniform


def init_prenorm(model):
    for name, p in model.named_parameters():
        is_norm = ".ln" in name or name.startswith("final_norm.")
        if is_norm and name.endswith(".weight"):
            init_normal(p, 1.0, 0.1)
        elif name.endswith(".bias"):
            init_normal(p, 0.0, 0.1)
        else:
            init_normal(p, 0.0, 0.3)


def mse(out, target):
    return ((out - target) ** 2).mean()


def forward_with_probs(model, x):
    attns = models.attention_modules(model)
    for a in attns:
        a.record_probs = True
    out = model(x)
    probs = [a.last_probs for a in attns]
    for a in attns:
        a.record_probs, a.last_probs = False, None
    return out, probs


def adam_losses(model, x, target):
    """Loss before each of ADAM_STEPS Adam steps and after the last one (ADAM_STEPS + 1 values)."""
    model = copy.deepcopy(model)
    opt = torch.optim.Adam(model.parameters(), **ADAM)
    losses = []
    for _ in range(ADAM_STEPS):
        opt.zero_grad(set_to_none=True)
        loss = mse(model(x), target)
        losses.append(loss.item())
        loss.backward()
        opt.step()
    with torch.no_grad():
        losses.append(mse(model(x), target).item())
    return torch.tensor(losses, dtype=torch.float64)


def make_case(build_model, init):
    torch.manual_seed(0)
    model = build_model().double()
    init(model)
    x = to_float32_grid(torch.rand(BATCH, SEQ, DIM, dtype=torch.float64) * 2 - 1)
    target = to_float32_grid(torch.rand(BATCH, SEQ, DIM, dtype=torch.float64) * 2 - 1)
    initial = copy.deepcopy(model)

    out, probs = forward_with_probs(model, x)
    loss = mse(out, target)
    model.zero_grad(set_to_none=True)
    loss.backward()

    params = list(model.named_parameters())
    tensors = [("input", x), ("target", target)]
    tensors += [(f"param.{n}", p.detach()) for n, p in params]
    tensors += [("output", out.detach()), ("loss", loss.detach().reshape(1))]
    tensors += [(f"grad.{n}", p.grad) for n, p in params]
    tensors += [(f"probs.layer{l}", pr) for l, pr in enumerate(probs)]
    tensors.append(("adam_losses", adam_losses(initial, x, target)))
    return [(name, t.numpy()) for name, t in tensors]


CASES = {
    "attn2x2_softmax.bin": (lambda: models.AttnOnlyModel(2, 2, DIM, "softmax", residual=True), init_attn_only),
    "attn2x2_relu.bin": (lambda: models.AttnOnlyModel(2, 2, DIM, "relu", residual=True), init_attn_only),
    "block_prenorm.bin": (lambda: models.PreNormModel(2, DIM, n_heads=2, d_head=8, d_hidden=32), init_prenorm),
}
# The paper's 2x2 model with the zoo normalizers that have a virtual slot (softmax_n, sink_logit), a
# learned per-head scale (ssmax) or exact zeros (softpick); per-head scalars drawn like every parameter.
CASES.update({
    f"attn2x2_{name}.bin": (lambda name=name: models.AttnOnlyModel(2, 2, DIM, name, residual=True), init_attn_only)
    for name in models.SLOT_SCALE_PICK_NORMALIZERS
})

# sparsemax, entmax15, gated attention (one gate per head) and the key-bias token with softmax rows.
CASES.update({
    "attn2x2_sparsemax.bin": (lambda: models.ZooAttnOnlyModel(2, 2, DIM, "sparsemax"), init_attn_only),
    "attn2x2_entmax15.bin": (lambda: models.ZooAttnOnlyModel(2, 2, DIM, "entmax15"), init_attn_only),
    "attn2x2_gated_softmax.bin": (lambda: models.ZooAttnOnlyModel(2, 2, DIM, "gated_softmax"), init_attn_only),
    "attn2x2_key_bias.bin": (lambda: models.ZooAttnOnlyModel(2, 2, DIM, "softmax", key_bias=True),
                             init_attn_only),
})

# Gu et al.'s normalized elu+1 (sinklab: elu1 with divisor row_sum).
CASES["attn2x2_elu1_row_sum.bin"] = (lambda: models.AttnOnlyModel(2, 2, DIM, "elu1", residual=True), init_attn_only)


def summarize(path, tensors):
    t = dict(tensors)
    grad_max = max(abs(v).max() for n, v in tensors if n.startswith("grad."))
    # Mean over rows 1.. of the largest attention weight: ~1/i for uniform softmax rows, near 1 when peaked.
    peak = sum(p.max(axis=-1)[..., 1:].mean() for n, p in tensors if n.startswith("probs.")) / \
        sum(1 for n, _ in tensors if n.startswith("probs."))
    adam = ", ".join(f"{v:.6g}" for v in t["adam_losses"])
    print(f"{os.path.basename(path)}: {len(tensors)} tensors, {os.path.getsize(path)} bytes, "
          f"loss {t['loss'][0]:.6g}, max|grad| {grad_max:.4g}, mean row-max weight {peak:.3f}, "
          f"adam_losses [{adam}]")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out-dir", default=DEFAULT_OUT, help="where to write the .bin files")
    args = parser.parse_args()
    os.makedirs(args.out_dir, exist_ok=True)
    torch.use_deterministic_algorithms(True)
    for file_name, (build_model, init) in CASES.items():
        tensors = make_case(build_model, init)
        path = os.path.join(args.out_dir, file_name)
        golden_format.write_golden(path, tensors)
        # Read back: the writer and the documented layout must agree byte for byte.
        stored = golden_format.read_golden(path)
        if list(stored) != [n for n, _ in tensors]:
            sys.exit(f"error: {path}: read-back names differ from what was written")
        summarize(path, tensors)


if __name__ == "__main__":
    main()
