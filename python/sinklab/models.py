"""Models in Python: load, parameters as NumPy views, caches and hooks (docs/python.md, "Models")."""
import os

import numpy as np

from . import _sinklab
from .errors import FileError
from .training import _override_list


def _path_of(run_or_path):
    """A run folder or checkpoint path from a str, a PathLike or a sinklab.Run."""
    path = getattr(run_or_path, "path", run_or_path)
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"expected a run folder, a checkpoint path or a sinklab.Run, got {type(run_or_path).__name__}")
    return os.fspath(path)


class Model:
    """A sinklab model. Passes run with gradients off on the attention path evaluation uses (the
    weights [H, B, T, T] exist), so the output of every call below is bit-identical to `sinklab eval`'s
    for the same inputs, hooks or not."""

    def __init__(self, native):
        self._native = native

    config = property(lambda self: self._native.config, doc="The resolved config, as a dict.")
    layers = property(lambda self: self._native.layers)
    heads = property(lambda self: self._native.heads)
    d_model = property(lambda self: self._native.d_model)
    max_seq_len = property(lambda self: self._native.max_seq_len)
    input_dim = property(lambda self: self._native.input_dim)
    output_dim = property(lambda self: self._native.output_dim)
    reads_tokens = property(lambda self: self._native.reads_tokens,
                            doc="True when inputs are token ids [B, T], else vectors [B, T, input_dim].")

    def parameters(self):
        """Every parameter by name, as a writable NumPy view of the model's own storage (no copy)."""
        return self._native.parameters()

    def activation_names(self):
        """The names run_with_cache records and run_with_hooks accepts, in the order a pass computes them."""
        return self._native.activation_names()

    def __call__(self, inputs, ablate="none", heads="all"):
        """The model's output [B, T, output_dim] for `inputs`."""
        output, _ = self._native.run(np.asarray(inputs), None, False, ablate, heads)
        return output

    def run_with_cache(self, inputs, names=None, ablate="none", heads="all"):
        """(output, cache): the cache maps every activation name to a NumPy view into the pass's memory.
        `names` (a list, or a function name -> bool) keeps only some, as a dict."""
        output, cache = self._native.run(np.asarray(inputs), None, True, ablate, heads)
        if names is None:
            return output, cache
        keep = names if callable(names) else set(names).__contains__
        if not callable(names):
            unknown = [n for n in names if n not in cache]
            if unknown:
                raise KeyError(f"names: {unknown} are not activations of this model; see model.activation_names()")
        return output, {name: cache[name] for name in cache.keys() if keep(name)}

    def run_with_hooks(self, inputs, hooks, ablate="none", heads="all"):
        """The output with hooks: {name: fn} or [(name, fn), ...]. fn(activation, name) gets a writable
        view and may edit it in place, or return an array of the same shape to replace it."""
        output, _ = self._native.run(np.asarray(inputs), hooks, False, ablate, heads)
        return output

    def evaluate(self, hooks=None, ablate="none", heads="all", samples=None):
        """The task's metrics and per-head sink statistics on the run's evaluation set, as `sinklab eval`
        computes them, with hooks applied to every evaluation chunk."""
        return self._native.evaluate(hooks, ablate, heads, samples)

    def __repr__(self):
        c = self.config["model"]
        return (f"<sinklab.Model {self.layers} layer(s) x {self.heads} head(s), d_model {self.d_model}, "
                f"normalizer {c['attention']['normalizer']}>")


def load_model(run):
    """The model of a run folder, a checkpoint file inside one, or a sinklab.Run."""
    path = _path_of(run)
    if not os.path.exists(path):
        raise FileError(f"{path}: no such run folder or checkpoint file")
    return Model(_sinklab.load_model(path))


def build_model(config, overrides=()):
    """A freshly initialized model of a config file, exactly as training starts it for the config's seed."""
    return Model(_sinklab.build_model(_path_of(config), _override_list(overrides)))


def construct(config, kind, beta=20.0, c=1.0, overrides=()):
    """The explicit softmax or relu construction on a config's model (docs/reproducing-sinks.md)."""
    return Model(_sinklab.construct(_path_of(config), kind, beta, c, _override_list(overrides)))
