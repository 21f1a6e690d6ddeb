"""Models in Python: load, parameters as NumPy views, caches and hooks (docs/python.md, "Models")."""
import os

import numpy as np

from . import _sinklab
from .activation_names import ActivationCache, HookName, canonical
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

    family = property(lambda self: self._native.family,
                      doc="An open checkpoint's family ('llama', 'gpt2', ...), '' for a run's model.")

    def run_with_cache(self, inputs, names=None, ablate="none", heads="all", names_filter=None):
        """(output, cache): the cache maps every activation name to a NumPy view into the pass's memory,
        and takes TransformerLens spellings too (cache["pattern", 0], "blocks.0.attn.hook_pattern").
        `names` (a list, or a function name -> bool; `names_filter` is the TransformerLens spelling)
        keeps only some, as a dict."""
        if names is not None and names_filter is not None:
            raise TypeError("run_with_cache: give names or names_filter, not both")
        names = names if names is not None else names_filter
        output, native = self._native.run(np.asarray(inputs), None, True, ablate, heads)
        cache = ActivationCache(native, self.layers)
        if names is None:
            return output, cache
        if callable(names):
            return output, {name: native[name] for name in native.keys() if names(name)}
        known = native.keys()
        wanted = {canonical(n, known, self.layers) for n in ([names] if isinstance(names, str) else names)}
        return output, {name: native[name] for name in known if name in wanted}

    def run_with_hooks(self, inputs, hooks=None, ablate="none", heads="all", fwd_hooks=None):
        """The output with hooks: {name: fn} or [(name, fn), ...] (`fwd_hooks`, TransformerLens's
        spelling, is the same). fn(activation, hook) gets a writable view and may edit it in place, or
        return an array of the same shape to replace it; `hook` is the name, a str that also has
        TransformerLens's hook.name. Names may be sinklab's or TransformerLens's."""
        if hooks is not None and fwd_hooks is not None:
            raise TypeError("run_with_hooks: give hooks or fwd_hooks, not both")
        output, _ = self._native.run(np.asarray(inputs), self._hooks(hooks if hooks is not None else fwd_hooks),
                                     False, ablate, heads)
        return output

    def _hooks(self, hooks):
        """Hooks with names made canonical and functions handed a HookName."""
        if hooks is None:
            return None
        if isinstance(hooks, dict):
            items = list(hooks.items())
        elif isinstance(hooks, (list, tuple)):
            items = list(hooks)
        else:
            return hooks  # the native layer names the type error
        known = self.activation_names()
        out = []
        for item in items:
            if not isinstance(item, (list, tuple)) or len(item) != 2 or not isinstance(item[0], str):
                out.append(item)  # the native layer names what is wrong
                continue
            name, fn = item
            if not callable(fn):
                out.append((canonical(name, known, self.layers), fn))
                continue
            out.append((canonical(name, known, self.layers), _with_hook_name(fn)))
        return out

    def evaluate(self, hooks=None, ablate="none", heads="all", samples=None):
        """The task's metrics and per-head sink statistics on the run's evaluation set, as `sinklab eval`
        computes them, with hooks applied to every evaluation chunk."""
        return self._native.evaluate(hooks, ablate, heads, samples)

    def __repr__(self):
        c = self.config["model"]
        if self.family:
            return (f"<sinklab.Model {self.family}: {self.layers} layer(s) x {self.heads} head(s), "
                    f"d_model {self.d_model}, vocabulary {self.output_dim}>")
        return (f"<sinklab.Model {self.layers} layer(s) x {self.heads} head(s), d_model {self.d_model}, "
                f"normalizer {c['attention']['normalizer']}>")


def _with_hook_name(fn):
    def hook(value, name):
        return fn(value, HookName(name))
    return hook


def load_model(run, threads=1):
    """The model of a run folder, a checkpoint file inside one, or a sinklab.Run; or of a Hugging Face
    model folder (config.json and safetensors weights: GPT-2, GPT-NeoX/Pythia, Llama, Mistral, Qwen2,
    Qwen3, OPT; docs/open-models.md), computed with `threads` threads."""
    path = _path_of(run)
    if not os.path.exists(path):
        raise FileError(f"{path}: no such run folder, checkpoint file or model folder")
    if _is_model_folder(path):
        return Model(_sinklab.load_open_model(path, int(threads)))
    return Model(_sinklab.load_model(path))


def _is_model_folder(path):
    """A Hugging Face model folder: config.json beside safetensors weights, and no run's config.yaml."""
    return (os.path.isdir(path) and os.path.isfile(os.path.join(path, "config.json"))
            and not os.path.exists(os.path.join(path, "config.yaml")))


def build_model(config, overrides=()):
    """A freshly initialized model of a config file, exactly as training starts it for the config's seed."""
    return Model(_sinklab.build_model(_path_of(config), _override_list(overrides)))


def construct(config, kind, beta=20.0, c=1.0, overrides=()):
    """The explicit softmax or relu construction on a config's model (docs/reproducing-sinks.md)."""
    return Model(_sinklab.construct(_path_of(config), kind, beta, c, _override_list(overrides)))
