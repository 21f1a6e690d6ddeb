"""Character windows of a text file, batched on torch, as data/text_lm_task.cpp draws them for
`tokenizer: char` (docs/language-model.md, "The task").

Ids: 0 = BOS, 1..n = the file's distinct bytes in ascending order. The last round(val_fraction * bytes)
bytes are the validation part; a training window is BOS followed by seq_len - 1 consecutive ids from a
uniformly drawn start in the training part. Position i < seq_len - 1 is scored on the id at i + 1
(position 0, BOS, on the window's first id); the last position has no target (IGNORED).
"""
import math

import torch

BOS = 0
IGNORED = -1  # the target of the last position; cross_entropy(..., ignore_index=IGNORED)


class CharWindowTask:
    def __init__(self, corpus_path, seq_len, val_fraction=0.05):
        with open(corpus_path, "rb") as f:
            text = f.read()
        if not 0.0 < val_fraction < 1.0:
            raise ValueError(f"val_fraction must be in (0, 1), got {val_fraction}")
        raw = torch.frombuffer(bytearray(text), dtype=torch.uint8)
        distinct = torch.unique(raw)  # ascending
        to_id = torch.zeros(256, dtype=torch.uint8)
        to_id[distinct.long()] = torch.arange(1, len(distinct) + 1, dtype=torch.uint8)
        self.vocab_size = len(distinct) + 1
        # std::llround rounds half away from zero (Python's round() to even): the KJV's 0.05 * 4,137,850
        # is exactly 206,892.5, so the training part is 3,930,957 bytes.
        validation = val_fraction * len(text)
        validation = math.floor(validation) + (1 if validation - math.floor(validation) >= 0.5 else 0)
        cut = len(text) - min(validation, len(text))
        all_ids = to_id[raw.long()]
        self.ids = all_ids[:cut]  # the training part, one byte per id
        self.val_ids = all_ids[cut:]  # the validation part (the evaluation's windows)
        if len(self.ids) < seq_len - 1:
            raise ValueError(f"the training part of {corpus_path} holds {len(self.ids)} bytes, fewer than one "
                             f"window of seq_len - 1 = {seq_len - 1}")
        self.seq_len = seq_len
        self._offsets = torch.arange(seq_len - 1)

    def sample(self, batch, generator, part=None):
        """Returns (input ids, target ids), both int64 [batch, seq_len]; part="val" draws them from the
        validation part."""
        ids = self.val_ids if part == "val" else self.ids  # the constructor checked the training part
        if part == "val" and len(ids) < self.seq_len - 1:
            raise ValueError(f"the validation part holds {len(ids)} bytes, fewer than one window of {self.seq_len - 1}")
        start = torch.randint(0, len(ids) - (self.seq_len - 1) + 1, (batch, 1), generator=generator)
        window = ids[start + self._offsets].long()  # [B, T - 1]
        inputs = torch.cat([torch.full((batch, 1), BOS, dtype=torch.int64), window], dim=1)
        targets = torch.cat([window, torch.full((batch, 1), IGNORED, dtype=torch.int64)], dim=1)
        return inputs, targets
