"""TransformerLens habits on sinklab's activation names (docs/python.md, "TransformerLens names").

sinklab names activations after its own layers ("blocks.0.attn.weights"); TransformerLens names hook
points ("blocks.0.attn.hook_pattern") and lets a cache be indexed by a short name and a layer
(cache["pattern", 0]). Both spellings are accepted wherever a name is: caches, run_with_cache's names,
run_with_hooks; a name that is neither gets a did-you-mean.
"""
import difflib

# TransformerLens hook point -> sinklab leaf, inside a block.
_BLOCK_ALIASES = {
    "hook_resid_pre": "resid_pre",
    "ln1.hook_normalized": "ln1.out",
    "attn.hook_q": "attn.q",
    "attn.hook_k": "attn.k",
    "attn.hook_v": "attn.v",
    "attn.hook_attn_scores": "attn.scores",
    "attn.hook_pattern": "attn.weights",
    "attn.hook_z": "attn.z",
    "hook_attn_out": "attn.out",
    "hook_resid_mid": "resid_mid",
    "ln2.hook_normalized": "ln2.out",
    "hook_mlp_out": "mlp.out",
    "hook_resid_post": "resid_post",
}
# Names outside the blocks.
_MODEL_ALIASES = {"ln_final.hook_normalized": "final_norm.out", "hook_logits": "logits"}
# cache[short, layer]: TransformerLens's utils.get_act_name short names.
_SHORT_NAMES = {
    "resid_pre": "resid_pre", "resid_mid": "resid_mid", "resid_post": "resid_post",
    "q": "attn.q", "k": "attn.k", "v": "attn.v", "z": "attn.z", "result": "attn.z",
    "attn_scores": "attn.scores", "scores": "attn.scores", "pattern": "attn.weights", "attn": "attn.weights",
    "weights": "attn.weights", "attn_out": "attn.out", "mlp_out": "mlp.out",
    "normalized": None,  # needs ln1 / ln2: refused below with a hint
}


class UnknownActivation(KeyError, ValueError):
    """An activation name the model does not have: a KeyError for a cache lookup, a ValueError for a hook."""

    def __str__(self):
        return str(self.args[0]) if self.args else ""


def canonical(name, known, layers=None):
    """sinklab's name for `name`: itself, a TransformerLens hook point, or a (short name, layer) pair.
    `known` is the model's activation names; raises KeyError with a did-you-mean for anything else."""
    if isinstance(name, tuple):
        if len(name) != 2 or not isinstance(name[0], str):
            raise UnknownActivation(f"{name!r}: index a cache with a name or a (name, layer) pair, e.g. ('pattern', 0)")
        short, layer = name
        if short not in _SHORT_NAMES or _SHORT_NAMES[short] is None:
            hint = difflib.get_close_matches(short, [s for s, v in _SHORT_NAMES.items() if v], n=1)
            raise UnknownActivation(f"{short!r} is not a short activation name" +
                           (f"; did you mean {hint[0]!r}?" if hint else "") +
                           f" (short names: {', '.join(s for s, v in _SHORT_NAMES.items() if v)})")
        layer = int(layer)
        if layers is not None and layer < 0:
            layer += layers
        name = f"blocks.{layer}.{_SHORT_NAMES[short]}"
    if not isinstance(name, str):
        raise TypeError(f"{name!r}: activation names are strings, or (short name, layer) pairs")
    if name in known:
        return name
    translated = _translate(name)
    if translated in known:
        return translated
    close = difflib.get_close_matches(name, list(known) + _aliases_of(known), n=3, cutoff=0.6)
    raise UnknownActivation(f"{name!r} is not an activation of this model" +
                   (f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else "") +
                   "; model.activation_names() lists them")


def _translate(name):
    if name in _MODEL_ALIASES:
        return _MODEL_ALIASES[name]
    parts = name.split(".", 2)
    if len(parts) == 3 and parts[0] == "blocks" and parts[1].lstrip("-").isdigit() and parts[2] in _BLOCK_ALIASES:
        return f"blocks.{parts[1]}.{_BLOCK_ALIASES[parts[2]]}"
    return name


def _aliases_of(known):
    """The TransformerLens spellings of the model's names (for did-you-mean)."""
    reverse = {v: k for k, v in _BLOCK_ALIASES.items()}
    out = []
    for n in known:
        parts = n.split(".", 2)
        if len(parts) == 3 and parts[0] == "blocks" and parts[2] in reverse:
            out.append(f"blocks.{parts[1]}.{reverse[parts[2]]}")
    out += [k for k, v in _MODEL_ALIASES.items() if v in known]
    return out


class HookName(str):
    """The name a hook function receives: a str (sinklab's habit, fn(value, name)) that also answers
    TransformerLens's hook.name."""

    @property
    def name(self):
        return str(self)


class ActivationCache:
    """The activations of one pass by name (NumPy views into the pass's memory). Indexable by sinklab
    names, TransformerLens hook points and (short name, layer) pairs: cache["pattern", 0]."""

    def __init__(self, native, layers):
        self._native = native
        self._layers = layers

    def _key(self, name):
        return canonical(name, self._native.keys(), self._layers)

    def __getitem__(self, name):
        return self._native[self._key(name)]

    def __contains__(self, name):
        try:
            self._key(name)
            return True
        except UnknownActivation:
            return False

    def __len__(self):
        return len(self._native)

    def __iter__(self):
        return iter(self._native.keys())

    def keys(self):
        return self._native.keys()

    def values(self):
        return [self._native[n] for n in self._native.keys()]

    def items(self):
        return [(n, self._native[n]) for n in self._native.keys()]

    def __repr__(self):
        return f"<sinklab.ActivationCache {len(self)} activations>"
