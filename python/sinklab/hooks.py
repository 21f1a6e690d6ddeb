"""Ready-made hooks for Model.run_with_hooks and Model.evaluate (docs/python.md, "Hooks").

Each returns a (name, function) pair; pass a list of them as `hooks`.
"""

import numpy as np

# Where the head index sits in each per-head activation's layout.
_HEAD_AXIS = {"q": 2, "k": 2, "v": 2, "z": 2, "gate": 2, "scores": 1, "weights": 1}


def _attn(layer, leaf):
    return f"blocks.{int(layer)}.attn.{leaf}"


def _head_index(name, head):
    leaf = name.rsplit(".", 1)[-1]
    if head is None:
        return (...,)
    if leaf not in _HEAD_AXIS:
        raise ValueError(f"{name} has no head axis; leave head out")
    return (slice(None),) * _HEAD_AXIS[leaf] + (int(head),)


def zero_bos_weight(layer, head):
    """a_i0 = 0 in every row of one head: the zero_bos_weight ablation written as a hook."""
    def hook(weights, name):
        weights[:, int(head), :, 0] = 0.0
    return _attn(layer, "weights"), hook


def zero(name, head=None):
    """Sets an activation (or one head of it) to 0."""
    index = _head_index(name, head)

    def hook(value, _name):
        value[index] = 0.0
    return name, hook


def mean_ablate(name, mean, head=None):
    """Replaces an activation (or one head of it) in every sample by `mean`, an array of the activation's
    shape without the batch axis, e.g. cache[name].mean(axis=0) over some reference inputs."""
    index = _head_index(name, head)
    per_sample = np.asarray(mean, dtype=np.float32)[None]  # a batch axis of 1, broadcast over samples

    def hook(value, _name):
        if per_sample.shape[1:] != value.shape[1:]:
            raise ValueError(f"mean_ablate {name}: the mean has shape {per_sample.shape[1:]}, "
                             f"the activation {value.shape[1:]} per sample")
        value[index] = per_sample[index]
    return name, hook


def patch(source_cache, name, head=None):
    """Writes the activation `name` (or one head of it) of another pass, source_cache[name], into this one:
    activation patching. Both passes must have the same shape."""
    source = source_cache[name]
    index = _head_index(name, head)

    def hook(value, _name):
        if value.shape != source.shape:
            raise ValueError(f"patch {name}: this pass has shape {value.shape}, the source {source.shape}")
        value[index] = source[index]
    return name, hook
