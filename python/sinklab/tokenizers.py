"""Tokenizers read from a Hugging Face tokenizer.json (docs/tokenizers.md): the C++ ones, with the ids of
HF's tokenizers library."""

import os

from . import _sinklab


class Tokenizer:
    """A model folder's tokenizer (tokenizer.json, and tokenizer_config.json when present)."""

    def __init__(self, path):
        self._tokenizer = _sinklab.Tokenizer.from_path(os.fspath(path))
        self.path = os.fspath(path)

    def encode(self, text, add_special_tokens=True):
        """The ids of `text` (str, or bytes whose invalid UTF-8 reads as U+FFFD), with the BOS/EOS tokens
        the files ask for unless add_special_tokens is False."""
        return self._tokenizer.encode(text, add_special_tokens)

    def decode(self, ids, skip_special_tokens=False):
        """The text of `ids` (any sequence of ints, a NumPy array too)."""
        return self._tokenizer.decode([int(i) for i in ids], skip_special_tokens)

    @property
    def vocab_size(self):
        """Largest id + 1, added tokens included."""
        return self._tokenizer.vocab_size

    @property
    def bos_id(self):
        return self._tokenizer.bos_id

    @property
    def eos_id(self):
        return self._tokenizer.eos_id

    def token_to_id(self, token):
        """The id of a token string (as the vocabulary spells it, e.g. 'Ġthe'), or None."""
        return self._tokenizer.token_to_id(token)

    def id_to_token(self, id):
        return self._tokenizer.id_to_token(id)

    def __repr__(self):
        return f"sinklab.Tokenizer({self.path!r}: {self._tokenizer.description})"


def tokenizer(path):
    """The tokenizer of a model folder, or of a tokenizer.json file."""
    return Tokenizer(path)
