#!/usr/bin/env python3
"""Loads a `sinklab export` into the PyTorch twin (tools/models.py) and checks that it reproduces sinklab.

Usage: python3 tools/check_export.py EXPORT [--eval EVAL] [--tolerance 1e-5]

EXPORT is a .safetensors or .npz file that `sinklab export` wrote; its resolved config (safetensors
__metadata__ "sinklab_config", or the npz entry "config.yaml") says which twin to build. Parameter
names map one to one onto the twin's (blocks.{l}.attn.w_q.weight, ...): a name or shape either side
lacks is an error. EVAL (default: EXPORT's stem + ".eval" + extension, as `sinklab export
--eval-samples N` writes it) holds sinklab's evaluation inputs, targets and outputs; the twin's outputs
on those inputs must be within TOLERANCE of the largest |output| of sinklab's. Exit status 0 when they
are, 1 when not, 2 for an export the twin cannot take.

The committed fixture tests/fixtures/export/ (docs/models.md) is the worked example:
  python3 tools/check_export.py tests/fixtures/export/model.safetensors
"""
import argparse
import json
import os
import struct
import sys
import zipfile

from torch_import import import_torch

torch = import_torch()  # first: it may re-run this script under Debian's python3, which has numpy and yaml
import numpy as np  # noqa: E402
import yaml  # noqa: E402

import models  # noqa: E402

# The twin builds the paper's attention-only model; these keys must have these values.
PAPER_MODEL = {"norm": "none", "mlp_hidden": 0, "bias": False, "head_dim": "full", "positional": "none",
               "input": "vectors", "input_projection": False, "output_head": False}


class ExportError(Exception):
    pass


def read_safetensors(path):
    """Returns ({name: float32 array} in data order, {metadata})."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 8:
        raise ExportError(f"{path}: truncated (no header length)")
    (length,) = struct.unpack("<Q", data[:8])
    if length > len(data) - 8:
        raise ExportError(f"{path}: truncated header")
    header = json.loads(data[8:8 + length])
    body = data[8 + length:]
    metadata = header.pop("__metadata__", {})
    tensors = {}
    for name, entry in sorted(header.items(), key=lambda item: item[1]["data_offsets"][0]):
        if entry["dtype"] != "F32":
            raise ExportError(f"{path}: tensor {name}: dtype {entry['dtype']} (sinklab exports F32)")
        begin, end = entry["data_offsets"]
        tensors[name] = np.frombuffer(body[begin:end], dtype="<f4").reshape(entry["shape"])
    return tensors, metadata


def read_export(path):
    """Returns ({name: array}, resolved config text)."""
    if path.endswith(".npz"):
        with np.load(path) as archive:
            tensors = {name: archive[name] for name in archive.files if name != "config.yaml"}
        with zipfile.ZipFile(path) as z:
            config = z.read("config.yaml").decode("utf-8")
        return tensors, config
    tensors, metadata = read_safetensors(path)
    if "sinklab_config" not in metadata:
        raise ExportError(f"{path}: no sinklab_config in __metadata__ (not written by sinklab export?)")
    return tensors, metadata["sinklab_config"]


def build_twin(config):
    """The tools/models.py model the config describes, in float32."""
    model = config["model"]
    for key, value in PAPER_MODEL.items():
        if model.get(key) != value:
            raise ExportError(f"the twin is the paper's attention-only model: model.{key} must be {value!r}, "
                              f"the export has {model.get(key)!r}")
    attention = model["attention"]
    if attention["scale"] != "none":
        raise ExportError(f"the twin has unscaled logits: model.attention.scale must be 'none', not {attention['scale']!r}")
    normalizer = attention["normalizer"]["name"]
    if normalizer == "relu" and attention["normalizer"].get("divisor") != "visible_non_bos":
        raise ExportError("the twin's relu divides by the non-BOS keys: model.attention.normalizer.divisor must be "
                          "visible_non_bos")
    layers, heads, width, residual = model["layers"], model["heads"], model["d_model"], model["residual"]
    key_bias = attention.get("key_bias", False)
    if normalizer in models.NORMALIZERS and not key_bias:
        return models.AttnOnlyModel(layers, heads, width, normalizer, residual)
    if normalizer in models.ZOO_NORMALIZERS and residual:
        return models.ZooAttnOnlyModel(layers, heads, width, normalizer, key_bias=key_bias)
    raise ExportError(f"the twin has no {normalizer!r} model (key_bias {key_bias}, residual {residual})")


def load_weights(twin, tensors, path):
    """Copies every tensor into the parameter of the same name; names and shapes must match one to one."""
    params = dict(twin.named_parameters())
    missing = [n for n in params if n not in tensors]
    extra = [n for n in tensors if n not in params]
    if missing or extra:
        raise ExportError(f"{path}: names differ from the twin's: the export lacks {missing}, the twin lacks {extra}")
    with torch.no_grad():
        for name, p in params.items():
            if tuple(tensors[name].shape) != tuple(p.shape):
                raise ExportError(f"{path}: {name} has shape {list(tensors[name].shape)}, the twin {list(p.shape)}")
            p.copy_(torch.from_numpy(np.array(tensors[name], dtype=np.float32)))


def default_eval_path(path):
    stem, extension = os.path.splitext(path)
    return stem + ".eval" + extension


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("export")
    parser.add_argument("--eval", help="sinklab's evaluation inputs and outputs (default: EXPORT's stem + .eval)")
    parser.add_argument("--tolerance", type=float, default=1e-5, help="relative to the largest |output|")
    args = parser.parse_args()
    eval_path = args.eval or default_eval_path(args.export)
    try:
        tensors, config_text = read_export(args.export)
        config = yaml.safe_load(config_text)
        twin = build_twin(config).float()
        load_weights(twin, tensors, args.export)
        evaluation, _ = read_export(eval_path) if eval_path.endswith(".npz") else read_safetensors(eval_path)
    except (ExportError, OSError, KeyError, ValueError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    x = torch.from_numpy(np.array(evaluation["input"], dtype=np.float32))
    want = np.array(evaluation["output"], dtype=np.float64)
    target = np.array(evaluation["target"], dtype=np.float64)
    with torch.no_grad():
        got = twin(x).double().numpy()
    scale = max(np.abs(want).max(), 1e-30)
    worst = np.abs(got - want).max()
    print(f"{args.export}: {len(tensors)} parameters into {type(twin).__name__}; {x.shape[0]} evaluation inputs "
          f"from {eval_path}")
    print(f"max |twin - sinklab| = {worst:.3e} (allowed {args.tolerance * scale:.3e}); "
          f"MSE vs target: twin {((got - target) ** 2).mean():.9e}, sinklab {((want - target) ** 2).mean():.9e}")
    if worst > args.tolerance * scale:
        print("MISMATCH: the twin does not reproduce sinklab's outputs", file=sys.stderr)
        return 1
    print("OK: the twin reproduces sinklab's outputs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
